//! The network lab: Chromium instances inside network namespaces of their own, and a relay with
//! delay, stall and cut between a client (the engine) and each of them.
//!
//! Why a relay and not `tc netem`: the machines this runs on have no qdisc modules (`tc qdisc
//! add dev lo root netem delay 50ms` answers "Specified qdisc kind is unknown"), so delay, loss
//! and cuts are made in userspace: [`Relay`] holds each chunk for the delay of its direction,
//! holds everything while stalled (what loss does to a TCP stream: retransmits stall it), and on
//! a cut resets every connection and refuses new ones until restored. A cut can also be made
//! on the wire: [`NsBrowser::link_down`] (`ip link set <veth> down`).
//!
//! Layout per browser: namespace `abl<N>-<pid of the test process>` with loopback and one veth
//! end `10.231.a.b+2/30`; the other end `10.231.a.b+1/30` in the host namespace. Chromium's new headless mode ignores
//! `--remote-debugging-address` (it listens on 127.0.0.1 only, measured on Chromium 148), so a
//! forwarder thread that entered the namespace (`setns`) listens on the namespace's veth address
//! and forwards to Chromium's loopback port there. Everything is torn down on drop: the browser's
//! process group killed, the forwarder stopped, the namespace and veth deleted.

use std::net::{Ipv4Addr, SocketAddr, SocketAddrV4};
use std::os::fd::AsFd;
use std::os::unix::process::CommandExt;
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::{mpsc, watch};

/// Chromium's debugging port inside a namespace (each namespace has its own loopback).
const NS_CDP_PORT: u16 = 9222;
/// The forwarder's port on the namespace's veth address.
const NS_FORWARD_PORT: u16 = 9223;

/// Why namespaces cannot be made here, or `None` when they can (probed by making one).
pub fn unavailable() -> Option<String> {
    if !rustix::process::geteuid().is_root() {
        return Some("not root: network namespaces need CAP_SYS_ADMIN".into());
    }
    if !std::path::Path::new("/usr/bin/chromium").exists() {
        return Some("no /usr/bin/chromium".into());
    }
    match Netns::create() {
        Ok(ns) => {
            drop(ns);
            None
        }
        Err(e) => Some(format!("cannot make a network namespace: {e}")),
    }
}

/// Prints why a lab test is skipped and returns true when it must be (never silently).
pub fn skip(test: &str) -> bool {
    match unavailable() {
        Some(why) => {
            eprintln!("SKIPPED {test}: the network lab is unavailable here: {why}");
            true
        }
        None => false,
    }
}

/// Deletes the namespaces of runs whose process is gone (a binary killed or aborted runs no
/// drop), with what still runs in them: a deleted namespace does not end its processes.
fn sweep_dead_runs() {
    let Ok(out) = Command::new("ip")
        .args(["netns", "list"])
        .stdin(Stdio::null())
        .output()
    else {
        return;
    };
    for line in String::from_utf8_lossy(&out.stdout).lines() {
        let Some(name) = line.split_whitespace().next() else {
            continue;
        };
        let Some((_, pid)) = name.strip_prefix("abl").and_then(|r| r.split_once('-')) else {
            continue;
        };
        if pid.parse::<u32>().is_ok() && !std::path::Path::new(&format!("/proc/{pid}")).exists() {
            kill_in_namespace(name);
            let _ = ip(&["netns", "del", name]);
        }
    }
}

/// Kills every process in namespace `name` (`ip netns pids`), if it exists.
fn kill_in_namespace(name: &str) {
    let Ok(out) = Command::new("ip")
        .args(["netns", "pids", name])
        .stdin(Stdio::null())
        .output()
    else {
        return;
    };
    for pid in String::from_utf8_lossy(&out.stdout).split_whitespace() {
        if let Some(pid) = pid.parse().ok().and_then(rustix::process::Pid::from_raw) {
            let _ = rustix::process::kill_process(pid, rustix::process::Signal::KILL);
        }
    }
}

fn ip(args: &[&str]) -> Result<(), String> {
    let out = Command::new("ip")
        .args(args)
        .stdin(Stdio::null())
        .output()
        .map_err(|e| format!("ip {}: {e}", args.join(" ")))?;
    if out.status.success() {
        Ok(())
    } else {
        Err(format!(
            "ip {}: {}",
            args.join(" "),
            String::from_utf8_lossy(&out.stderr).trim()
        ))
    }
}

/// Subnets handed out by this process (mixed with the pid so parallel test binaries differ).
static NEXT: AtomicU64 = AtomicU64::new(0);

/// One network namespace with a veth pair to the host namespace; deleted on drop.
#[derive(Debug)]
pub struct Netns {
    /// The namespace's name (`ip netns`).
    pub name: String,
    /// The host end of the veth pair.
    pub host_if: String,
    /// The host end's address.
    pub host_addr: Ipv4Addr,
    /// The namespace end's address.
    pub ns_addr: Ipv4Addr,
}

impl Netns {
    /// Makes a namespace with loopback up and a /30 veth link to the host.
    pub fn create() -> Result<Netns, String> {
        let n = NEXT.fetch_add(1, Ordering::SeqCst);
        let idx = ((u64::from(std::process::id()) % 1024) * 16 + n) % 16384;
        let (a, b) = (
            u8::try_from(idx / 64).unwrap_or(0),
            u8::try_from((idx % 64) * 4).unwrap_or(0),
        );
        // The creating process's pid in the name: a later run can tell a dead run's namespace.
        let name = format!("abl{idx}-{}", std::process::id());
        let (host_if, ns_if) = (format!("abl{idx}h"), format!("abl{idx}n"));
        sweep_dead_runs();
        let _ = ip(&["link", "del", &host_if]);
        let ns = Netns {
            name: name.clone(),
            host_if: host_if.clone(),
            host_addr: Ipv4Addr::new(10, 231, a, b + 1),
            ns_addr: Ipv4Addr::new(10, 231, a, b + 2),
        };
        ip(&["netns", "add", &name])?;
        let host_cidr = format!("{}/30", ns.host_addr);
        let ns_cidr = format!("{}/30", ns.ns_addr);
        let steps: [&[&str]; 7] = [
            &[
                "link", "add", &host_if, "type", "veth", "peer", "name", &ns_if,
            ],
            &["link", "set", &ns_if, "netns", &name],
            &["addr", "add", &host_cidr, "dev", &host_if],
            &["link", "set", &host_if, "up"],
            &["-n", &name, "addr", "add", &ns_cidr, "dev", &ns_if],
            &["-n", &name, "link", "set", &ns_if, "up"],
            &["-n", &name, "link", "set", "lo", "up"],
        ];
        for step in steps {
            ip(step)?;
        }
        Ok(ns)
    }

    /// Takes the link down (packets are dropped; connections stall, new ones time out).
    pub fn link_down(&self) -> Result<(), String> {
        ip(&["link", "set", &self.host_if, "down"])
    }

    /// Brings the link back up.
    pub fn link_up(&self) -> Result<(), String> {
        ip(&["link", "set", &self.host_if, "up"])
    }
}

impl Drop for Netns {
    fn drop(&mut self) {
        kill_in_namespace(&self.name);
        let _ = ip(&["netns", "del", &self.name]);
        let _ = ip(&["link", "del", &self.host_if]);
    }
}

/// A forwarder running on a thread inside a namespace; stops on drop.
#[derive(Debug)]
struct Forwarder {
    stop: Option<tokio::sync::oneshot::Sender<()>>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl Forwarder {
    /// Listens on `listen` inside namespace `ns` and forwards each connection to `to` there.
    fn start(ns: &str, listen: SocketAddr, to: SocketAddr) -> Result<Forwarder, String> {
        let file = std::fs::File::open(format!("/run/netns/{ns}"))
            .map_err(|e| format!("open /run/netns/{ns}: {e}"))?;
        let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
        let (ready_tx, ready_rx) = std::sync::mpsc::channel::<Result<(), String>>();
        let thread = std::thread::spawn(move || {
            // Only this thread enters the namespace: every socket it makes lives there.
            if let Err(e) = rustix::thread::move_into_link_name_space(
                file.as_fd(),
                Some(rustix::thread::LinkNameSpaceType::Network),
            ) {
                let _ = ready_tx.send(Err(format!("setns: {e}")));
                return;
            }
            let rt = match tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
            {
                Ok(rt) => rt,
                Err(e) => {
                    let _ = ready_tx.send(Err(format!("runtime: {e}")));
                    return;
                }
            };
            rt.block_on(async move {
                let listener = match TcpListener::bind(listen).await {
                    Ok(l) => l,
                    Err(e) => {
                        let _ = ready_tx.send(Err(format!("bind {listen}: {e}")));
                        return;
                    }
                };
                let _ = ready_tx.send(Ok(()));
                let accepting = async {
                    loop {
                        let Ok((mut inbound, _)) = listener.accept().await else {
                            continue;
                        };
                        tokio::spawn(async move {
                            if let Ok(mut outbound) = TcpStream::connect(to).await {
                                let _ = inbound.set_nodelay(true);
                                let _ = outbound.set_nodelay(true);
                                let _ = tokio::io::copy_bidirectional(&mut inbound, &mut outbound)
                                    .await;
                            }
                        });
                    }
                };
                tokio::select! {
                    () = accepting => {}
                    _ = stopped => {}
                }
            });
        });
        match ready_rx.recv_timeout(Duration::from_secs(10)) {
            Ok(Ok(())) => Ok(Forwarder {
                stop: Some(stop),
                thread: Some(thread),
            }),
            Ok(Err(e)) => Err(e),
            Err(_) => Err("the forwarder thread did not start".into()),
        }
    }
}

impl Drop for Forwarder {
    fn drop(&mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

/// A headless Chromium inside a namespace of its own, reachable at [`NsBrowser::addr`] from the
/// host namespace. Killed (its whole process group) and its namespace deleted on drop.
#[derive(Debug)]
pub struct NsBrowser {
    child: Option<Child>,
    forwarder: Option<Forwarder>,
    _profile: tempfile::TempDir,
    /// Its namespace (dropped last).
    pub ns: Netns,
}

impl NsBrowser {
    /// Starts Chromium in a new namespace and waits until its CDP endpoint answers.
    pub fn start() -> Result<NsBrowser, String> {
        let ns = Netns::create()?;
        let profile = tempfile::tempdir().map_err(|e| format!("tempdir: {e}"))?;
        let child = Command::new("ip")
            .args(["netns", "exec", &ns.name, "/usr/bin/chromium"])
            .args([
                "--headless=new",
                "--no-sandbox",
                "--disable-gpu",
                "--disable-quic",
                "--no-first-run",
                "--disable-background-networking",
                "--disable-component-update",
                "--disable-sync",
                "--site-per-process",
            ])
            .arg(format!("--user-data-dir={}", profile.path().display()))
            .arg(format!("--remote-debugging-port={NS_CDP_PORT}"))
            .arg("about:blank")
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            // Its own process group: drop kills the renderers and helpers with it.
            .process_group(0)
            .spawn()
            .map_err(|e| format!("spawn chromium: {e}"))?;
        let mut b = NsBrowser {
            child: Some(child),
            forwarder: None,
            _profile: profile,
            ns,
        };
        b.forwarder = Some(Forwarder::start(
            &b.ns.name,
            SocketAddr::V4(SocketAddrV4::new(b.ns.ns_addr, NS_FORWARD_PORT)),
            SocketAddr::V4(SocketAddrV4::new(Ipv4Addr::LOCALHOST, NS_CDP_PORT)),
        )?);
        b.wait_ready(Duration::from_secs(30))?;
        Ok(b)
    }

    /// The browser's CDP address as the host namespace reaches it.
    pub fn addr(&self) -> SocketAddr {
        SocketAddr::V4(SocketAddrV4::new(self.ns.ns_addr, NS_FORWARD_PORT))
    }

    /// Polls `GET /json/version` until it answers.
    fn wait_ready(&self, within: Duration) -> Result<(), String> {
        let until = Instant::now() + within;
        let mut last = String::new();
        while Instant::now() < until {
            match http_get(self.addr(), "/json/version") {
                Ok(body) if body.contains("webSocketDebuggerUrl") => return Ok(()),
                Ok(body) => last = body,
                Err(e) => last = e,
            }
            std::thread::sleep(Duration::from_millis(100));
        }
        Err(format!(
            "chromium in {} did not answer: {last}",
            self.ns.name
        ))
    }

    /// Kills the browser (its process group) and reaps it; its port closes with it (the
    /// forwarder stops), so a connect there is refused as at a host where the browser died.
    pub fn kill(&mut self) {
        self.forwarder.take();
        if let Some(mut child) = self.child.take() {
            if let Some(pid) = rustix::process::Pid::from_raw(child.id() as i32) {
                let _ = rustix::process::kill_process_group(pid, rustix::process::Signal::KILL);
            }
            let _ = child.kill();
            let _ = child.wait();
        }
    }

    /// `ip link set <veth> down`.
    pub fn link_down(&self) -> Result<(), String> {
        self.ns.link_down()
    }

    /// `ip link set <veth> up`.
    pub fn link_up(&self) -> Result<(), String> {
        self.ns.link_up()
    }
}

impl Drop for NsBrowser {
    fn drop(&mut self) {
        self.kill();
        self.forwarder.take();
    }
}

/// A blocking HTTP GET (for readiness probes; Chromium answers HTTP/1.0 with nothing).
fn http_get(addr: SocketAddr, path: &str) -> Result<String, String> {
    use std::io::{Read, Write};
    let mut s = std::net::TcpStream::connect_timeout(&addr, Duration::from_secs(2))
        .map_err(|e| e.to_string())?;
    let _ = s.set_read_timeout(Some(Duration::from_secs(5)));
    write!(
        s,
        "GET {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n\r\n"
    )
    .map_err(|e| e.to_string())?;
    // Chromium keeps the connection open (whatever `Connection` says): read until the JSON ends.
    let mut body = Vec::new();
    let mut buf = [0u8; 4096];
    loop {
        match s.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => body.extend_from_slice(&buf[..n]),
            Err(e) if body.is_empty() => return Err(e.to_string()),
            Err(_) => break,
        }
        if body.ends_with(b"}\n") || body.ends_with(b"}") {
            break;
        }
    }
    Ok(String::from_utf8_lossy(&body).into_owned())
}

/// A one-page HTTP server on an address of the host namespace (a veth end), so a browser in a
/// namespace loads its page over the lab's link. Stops on drop.
#[derive(Debug)]
pub struct PageServer {
    addr: SocketAddr,
    task: tokio::task::JoinHandle<()>,
}

impl PageServer {
    /// Serves `html` for every path on `ip` (a free port), on the current tokio runtime.
    pub async fn start(ip: Ipv4Addr, html: &str) -> std::io::Result<PageServer> {
        let listener = TcpListener::bind((ip, 0)).await?;
        let addr = listener.local_addr()?;
        let body: Arc<[u8]> = Arc::from(html.as_bytes());
        let task = tokio::spawn(async move {
            loop {
                let Ok((mut s, _)) = listener.accept().await else {
                    continue;
                };
                let body = body.clone();
                tokio::spawn(async move {
                    let mut req = Vec::new();
                    let mut buf = [0u8; 4096];
                    while !req.windows(4).any(|w| w == b"\r\n\r\n") {
                        match s.read(&mut buf).await {
                            Ok(0) | Err(_) => return,
                            Ok(n) => req.extend_from_slice(&buf[..n]),
                        }
                    }
                    let head = format!(
                        "HTTP/1.1 200 OK\r\nContent-Type: text/html; charset=utf-8\r\n\
                         Content-Length: {}\r\nCache-Control: no-store\r\nConnection: close\r\n\r\n",
                        body.len()
                    );
                    let _ = s.write_all(head.as_bytes()).await;
                    let _ = s.write_all(&body).await;
                    let _ = s.shutdown().await;
                });
            }
        });
        Ok(PageServer { addr, task })
    }

    /// `http://ADDR/path`.
    pub fn url(&self, path: &str) -> String {
        format!("http://{}{path}", self.addr)
    }
}

impl Drop for PageServer {
    fn drop(&mut self) {
        self.task.abort();
    }
}

/// What the relay does to the bytes, shared with its connections.
#[derive(Debug)]
struct RelayState {
    /// (client → browser, browser → client) delays.
    delays: Mutex<(Duration, Duration)>,
    /// While true, nothing is forwarded (held, in order).
    stalled: watch::Sender<bool>,
    /// Bumped on every cut: connections of an older epoch end (reset).
    epoch: watch::Sender<u64>,
    cut: AtomicBool,
    /// WebSocket messages client → browser (CDP requests).
    requests: AtomicU64,
    /// WebSocket messages browser → client (responses and events).
    replies: AtomicU64,
    /// Connections accepted and forwarded.
    connections: AtomicU64,
}

/// A TCP relay on 127.0.0.1 in front of one upstream address, with settable delay per
/// direction, stall (loss) and cut/restore; it counts the WebSocket messages in each direction.
/// Stops on drop.
#[derive(Debug)]
pub struct Relay {
    addr: SocketAddr,
    state: Arc<RelayState>,
    task: tokio::task::JoinHandle<()>,
}

impl Relay {
    /// Starts a relay to `upstream` (on the current tokio runtime).
    pub async fn start(upstream: SocketAddr) -> std::io::Result<Relay> {
        let listener = TcpListener::bind("127.0.0.1:0").await?;
        let addr = listener.local_addr()?;
        let state = Arc::new(RelayState {
            delays: Mutex::new((Duration::ZERO, Duration::ZERO)),
            stalled: watch::Sender::new(false),
            epoch: watch::Sender::new(0),
            cut: AtomicBool::new(false),
            requests: AtomicU64::new(0),
            replies: AtomicU64::new(0),
            connections: AtomicU64::new(0),
        });
        let st = state.clone();
        let task = tokio::spawn(async move {
            loop {
                let Ok((client, _)) = listener.accept().await else {
                    continue;
                };
                if st.cut.load(Ordering::SeqCst) {
                    // Refused while cut: reset at once.
                    let _ = client.set_zero_linger();
                    drop(client);
                    continue;
                }
                tokio::spawn(relay_connection(client, upstream, st.clone()));
            }
        });
        Ok(Relay { addr, state, task })
    }

    /// `http://127.0.0.1:PORT`: the endpoint to give `start --cdp-endpoint`.
    pub fn endpoint(&self) -> String {
        format!("http://{}", self.addr)
    }

    /// The relay's address.
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// Sets the delay of each direction (client → browser, browser → client).
    pub fn set_delay(&self, up: Duration, down: Duration) {
        *self.state.delays.lock().unwrap_or_else(|p| p.into_inner()) = (up, down);
    }

    /// Stalls (holds every byte, as a lossy link does) or lets go.
    pub fn set_stalled(&self, stalled: bool) {
        self.state.stalled.send_replace(stalled);
    }

    /// Cuts the link: every connection is reset and new ones are refused until [`Relay::restore`].
    pub fn cut(&self) {
        self.state.cut.store(true, Ordering::SeqCst);
        self.state.epoch.send_modify(|e| *e += 1);
    }

    /// Accepts connections again.
    pub fn restore(&self) {
        self.state.cut.store(false, Ordering::SeqCst);
    }

    /// CDP requests (WebSocket messages client → browser) relayed so far.
    pub fn requests(&self) -> u64 {
        self.state.requests.load(Ordering::SeqCst)
    }

    /// WebSocket messages browser → client relayed so far.
    pub fn replies(&self) -> u64 {
        self.state.replies.load(Ordering::SeqCst)
    }

    /// Connections forwarded so far.
    pub fn connections(&self) -> u64 {
        self.state.connections.load(Ordering::SeqCst)
    }
}

impl Drop for Relay {
    fn drop(&mut self) {
        self.task.abort();
        self.cut();
    }
}

async fn relay_connection(client: TcpStream, upstream: SocketAddr, st: Arc<RelayState>) {
    let mut epoch = st.epoch.subscribe();
    epoch.mark_unchanged();
    let Ok(Ok(server)) =
        tokio::time::timeout(Duration::from_secs(5), TcpStream::connect(upstream)).await
    else {
        let _ = client.set_zero_linger();
        return;
    };
    st.connections.fetch_add(1, Ordering::SeqCst);
    let _ = client.set_nodelay(true);
    let _ = server.set_nodelay(true);
    let _ = client.set_zero_linger();
    let _ = server.set_zero_linger();
    let (cr, cw) = client.into_split();
    let (sr, sw) = server.into_split();
    let up = pipe(cr, sw, st.clone(), true);
    let down = pipe(sr, cw, st.clone(), false);
    tokio::select! {
        () = async { tokio::join!(up, down); } => {}
        _ = epoch.changed() => {}
    }
    // Dropping the halves (zero linger) resets both sides.
}

/// Forwards one direction: a reader stamps each chunk, a writer releases it after the delay.
async fn pipe(
    mut from: tokio::net::tcp::OwnedReadHalf,
    mut to: tokio::net::tcp::OwnedWriteHalf,
    st: Arc<RelayState>,
    up: bool,
) {
    let (tx, mut rx) = mpsc::unbounded_channel::<(Instant, Vec<u8>)>();
    let counter = if up { &st.requests } else { &st.replies };
    let reading = async {
        let mut frames = FrameCounter::new(up);
        let mut buf = vec![0u8; 64 * 1024];
        loop {
            let n = match from.read(&mut buf).await {
                Ok(0) | Err(_) => break,
                Ok(n) => n,
            };
            counter.fetch_add(frames.feed(&buf[..n]), Ordering::SeqCst);
            let delay = {
                let d = st.delays.lock().unwrap_or_else(|p| p.into_inner());
                if up { d.0 } else { d.1 }
            };
            if tx
                .send((Instant::now() + delay, buf[..n].to_vec()))
                .is_err()
            {
                break;
            }
        }
        drop(tx);
    };
    let writing = async {
        let mut stalled = st.stalled.subscribe();
        while let Some((at, chunk)) = rx.recv().await {
            tokio::time::sleep_until(at.into()).await;
            if stalled.wait_for(|s| !*s).await.is_err() {
                break;
            }
            if to.write_all(&chunk).await.is_err() {
                break;
            }
        }
        let _ = to.shutdown().await;
    };
    tokio::join!(reading, writing);
}

/// Counts WebSocket data messages in a byte stream (after the HTTP upgrade), chunk by chunk.
#[derive(Debug)]
struct FrameCounter {
    in_http: bool,
    http_tail: Vec<u8>,
    header: Vec<u8>,
    skip: u64,
}

impl FrameCounter {
    fn new(_client_side: bool) -> FrameCounter {
        FrameCounter {
            in_http: true,
            http_tail: Vec::new(),
            header: Vec::new(),
            skip: 0,
        }
    }

    /// Feeds bytes; returns the data messages (text or binary first frames) that began in them.
    fn feed(&mut self, mut bytes: &[u8]) -> u64 {
        let mut count = 0;
        if self.in_http {
            self.http_tail.extend_from_slice(bytes);
            match self.http_tail.windows(4).position(|w| w == b"\r\n\r\n") {
                Some(end) => {
                    let rest = self.http_tail.split_off(end + 4);
                    self.in_http = false;
                    self.http_tail.clear();
                    return self.feed(&rest);
                }
                None => return 0,
            }
        }
        while !bytes.is_empty() {
            if self.skip > 0 {
                let n = usize::try_from(self.skip)
                    .unwrap_or(usize::MAX)
                    .min(bytes.len());
                self.skip -= n as u64;
                bytes = &bytes[n..];
                continue;
            }
            self.header.push(bytes[0]);
            bytes = &bytes[1..];
            // Bytes come one at a time here, so a header is whole the moment it parses.
            if let Some((opcode, payload, _)) = parse_header(&self.header) {
                if opcode == 1 || opcode == 2 {
                    count += 1;
                }
                self.skip = payload;
                self.header.clear();
            }
        }
        count
    }
}

/// (opcode, payload length, header length) once `h` holds a whole frame header.
fn parse_header(h: &[u8]) -> Option<(u8, u64, usize)> {
    if h.len() < 2 {
        return None;
    }
    let opcode = h[0] & 0x0f;
    let masked = h[1] & 0x80 != 0;
    let short = u64::from(h[1] & 0x7f);
    let (ext, payload) = match short {
        126 if h.len() >= 4 => (2, u64::from(u16::from_be_bytes([h[2], h[3]]))),
        127 if h.len() >= 10 => {
            let mut b = [0u8; 8];
            b.copy_from_slice(&h[2..10]);
            (8, u64::from_be_bytes(b))
        }
        126 | 127 => return None,
        n => (0, n),
    };
    let len = 2 + ext + if masked { 4 } else { 0 };
    (h.len() >= len).then_some((opcode, payload, len))
}

#[cfg(test)]
mod tests {
    use super::FrameCounter;

    #[test]
    fn counts_messages_across_chunk_boundaries() {
        let mut c = FrameCounter::new(true);
        let mut stream = b"GET / HTTP/1.1\r\nHost: x\r\n\r\n".to_vec();
        // A masked text frame of 3 bytes, a ping, and a masked text frame of 200 bytes.
        stream.extend_from_slice(&[0x81, 0x83, 1, 2, 3, 4, b'a', b'b', b'c']);
        stream.extend_from_slice(&[0x89, 0x80, 1, 2, 3, 4]);
        stream.extend_from_slice(&[0x81, 0xfe, 0, 200, 1, 2, 3, 4]);
        stream.extend(std::iter::repeat_n(b'x', 200));
        let total: u64 = stream.chunks(5).map(|ch| c.feed(ch)).sum();
        assert_eq!(total, 2);
    }
}
