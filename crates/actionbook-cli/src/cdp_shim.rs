//! Temporary stand-in for the cdp-protocol transport API (Connection, Session, Browser, connect) until
//! that crate's transport lands; every call fails with `ConnectionClosed`.
#![allow(missing_docs, dead_code, clippy::unused_async)]

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

pub use cdp_protocol::*;

#[derive(Debug, Clone)]
pub struct Connection;
impl Connection {
    pub fn is_closed(&self) -> bool {
        true
    }
    pub fn browser(&self) -> Session {
        Session
    }
}

#[derive(Debug, Clone)]
pub struct Session;
impl Session {
    pub async fn call_timeout(
        &self,
        _m: &str,
        _p: serde_json::Value,
        _t: Duration,
    ) -> Result<serde_json::Value, CdpError> {
        Err(CdpError::ConnectionClosed)
    }
    pub fn events(&self, _m: &[&str]) -> EventStream {
        EventStream
    }
    pub async fn attach_to_target(&self, _t: &TargetId) -> Result<Session, CdpError> {
        Err(CdpError::ConnectionClosed)
    }
}

#[derive(Debug)]
pub struct EventStream;
impl EventStream {
    pub async fn recv(&mut self) -> Option<RawEvent> {
        None
    }
}

#[derive(Debug, Clone)]
pub struct RawEvent {
    pub method: String,
    pub params: Arc<serde_json::value::RawValue>,
}

#[derive(Debug, Default)]
pub struct LaunchOptions {
    pub executable: Option<PathBuf>,
    pub headless: bool,
    pub user_data_dir: Option<PathBuf>,
    pub args: Vec<String>,
    pub startup_timeout: Duration,
    pub detached: bool,
}

#[derive(Debug)]
pub struct Browser;
#[derive(Debug)]
pub struct DetachedBrowser;
impl Browser {
    pub async fn launch(_o: LaunchOptions) -> Result<Browser, CdpError> {
        Err(CdpError::ConnectionClosed)
    }
    pub fn connection(&self) -> &Connection {
        &Connection
    }
    pub fn ws_url(&self) -> &str {
        ""
    }
    pub fn pid(&self) -> Option<u32> {
        None
    }
    pub async fn close(self) -> Result<(), CdpError> {
        Ok(())
    }
    pub fn detach(self) -> DetachedBrowser {
        DetachedBrowser
    }
}

pub fn find_executable() -> Result<PathBuf, CdpError> {
    Err(CdpError::BrowserNotFound { tried: vec![] })
}

pub async fn connect(
    _endpoint: &str,
    _headers: &[(String, String)],
) -> Result<(Connection, String), CdpError> {
    Err(CdpError::ConnectionClosed)
}
