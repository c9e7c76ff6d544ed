//! Background services of an attached tab: started when the tab's page session is attached,
//! stopped (their tasks aborted) when that session goes: re-attached, closed, or the tab dropped.
//!
//! A service is one type implementing [`TabService`] plus one line in [`prepare`]. It is made
//! before the attach (so it can subscribe to connection-wide events that come with the attach
//! itself), then started on the page's flat session; what it records it keeps in itself, and
//! commands read it with [`Services::get`] (`state.services.get::<DialogAnswerer>()`).
//!
//! - [`crash::CrashWatch`]: whether the page crashed or was loaded again after a crash;
//! - [`dialogs::DialogAnswerer`]: answers JavaScript dialogs and reports them as warnings;
//! - [`console::ConsoleLog`]: records console messages and page errors of every frame.
//! - [`network::NetworkRecorder`]: every request of every frame and worker of the tab, and how
//!   many are in flight (`wait network-idle`).
//! - [`restores::RestoreWatch`]: when the page was last restored from the back/forward cache
//!   (`wait navigation`).

use std::any::Any;
use std::sync::Arc;

use cdp_protocol::{Connection, Session, TargetId};
use futures::future::BoxFuture;

pub(crate) mod console;
pub(crate) mod crash;
pub(crate) mod dialogs;
pub(crate) mod network;
pub(crate) mod restores;

/// A background job of an attached tab.
pub(crate) trait TabService: Any + Send + Sync {
    /// Makes the service before the tab (page target `target`) is attached; it may subscribe to
    /// `conn`'s events already.
    fn new(conn: &Connection, target: &TargetId) -> Self
    where
        Self: Sized;

    /// Starts it on the attached page session. The task it returns is spawned, and aborted when the
    /// session goes; `None` when it needs no task.
    fn start(&self, page: &Session) -> Option<BoxFuture<'static, ()>>;

    /// Resolves once the service sees what it must from the tab's first command on (the attach
    /// waits for it, bounded); at once by default.
    fn ready(&self) -> BoxFuture<'static, ()> {
        Box::pin(async {})
    }
}

/// The services of one attach, in start order ([`prepare`] makes them).
fn prepare(conn: &Connection, target: &TargetId) -> Vec<Arc<dyn Running>> {
    vec![
        Arc::new(crash::CrashWatch::new(conn, target)),
        Arc::new(dialogs::DialogAnswerer::new(conn, target)),
        Arc::new(console::ConsoleLog::new(conn, target)),
        Arc::new(network::NetworkRecorder::new(conn, target)),
        Arc::new(restores::RestoreWatch::new(conn, target)),
    ]
}

/// A service behind `dyn`: started, and found again by its type.
trait Running: Send + Sync {
    fn start(&self, page: &Session) -> Option<BoxFuture<'static, ()>>;
    fn ready(&self) -> BoxFuture<'static, ()>;
    fn as_any(&self) -> &dyn Any;
}

impl<S: TabService> Running for S {
    fn start(&self, page: &Session) -> Option<BoxFuture<'static, ()>> {
        TabService::start(self, page)
    }

    fn ready(&self) -> BoxFuture<'static, ()> {
        TabService::ready(self)
    }

    fn as_any(&self) -> &dyn Any {
        self
    }
}

/// Services made for an attach that is under way ([`Pending::start`] once it answered).
pub(crate) struct Pending {
    services: Vec<Arc<dyn Running>>,
}

impl Pending {
    /// Makes every service for a tab (page target `target`) about to be attached on `conn`.
    pub fn prepare(conn: &Connection, target: &TargetId) -> Pending {
        Pending {
            services: prepare(conn, target),
        }
    }

    /// The service of type `S`, to configure before it starts.
    pub fn get<S: TabService>(&self) -> Option<&S> {
        self.services
            .iter()
            .find_map(|s| s.as_any().downcast_ref::<S>())
    }

    /// Starts every service on the attached session.
    pub fn start(self, page: &Session) -> Services {
        let tasks = self
            .services
            .iter()
            .filter_map(|s| s.start(page))
            .map(|task| tokio::spawn(task).abort_handle())
            .collect();
        Services {
            services: self.services,
            tasks,
        }
    }
}

/// The running services of a tab's attached session; dropping it stops them.
#[derive(Default)]
pub(crate) struct Services {
    services: Vec<Arc<dyn Running>>,
    tasks: Vec<tokio::task::AbortHandle>,
}

impl Services {
    /// Resolves once every service is ready ([`TabService::ready`]).
    pub fn ready(&self) -> BoxFuture<'static, ()> {
        let all: Vec<_> = self.services.iter().map(|s| s.ready()).collect();
        Box::pin(async move {
            futures::future::join_all(all).await;
        })
    }

    /// The running service of type `S`, if any.
    pub fn get<S: TabService>(&self) -> Option<&S> {
        self.services
            .iter()
            .find_map(|s| s.as_any().downcast_ref::<S>())
    }
}

impl Drop for Services {
    fn drop(&mut self) {
        for t in &self.tasks {
            t.abort();
        }
    }
}

impl std::fmt::Debug for Services {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Services")
            .field("services", &self.services.len())
            .field("tasks", &self.tasks.len())
            .finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn dropping_the_services_stops_their_tasks() {
        let (alive, stopped) = tokio::sync::oneshot::channel::<()>();
        let task = tokio::spawn(async move {
            let _alive = alive;
            std::future::pending::<()>().await
        });
        let services = Services {
            services: Vec::new(),
            tasks: vec![task.abort_handle()],
        };
        drop(services);
        // The task was aborted, so what it held is gone.
        assert!(stopped.await.is_err());
        assert!(task.await.is_err_and(|e| e.is_cancelled()));
    }

    #[test]
    fn services_are_found_by_type() {
        let services = Services {
            services: vec![Arc::new(dialogs::DialogAnswerer::default())],
            tasks: Vec::new(),
        };
        assert!(services.get::<dialogs::DialogAnswerer>().is_some());
        assert!(services.get::<crash::CrashWatch>().is_none());
    }
}
