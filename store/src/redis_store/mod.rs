//! The Valkey/Redis store, for replicas that share their state: the
//! `redis` crate's connection manager (one multiplexed connection that
//! reconnects by itself), the Lua scripts of `scripts.rs` for everything
//! that reads and writes, and one connection of its own per subscription.
//! `rediss://` is TLS on rustls (ring, the webpki roots or the configured
//! certificates), as the host's other TLS.
//! A password comes from the caller and appears in no error or log: error
//! texts are scrubbed of it, and the store is named by its address only.

mod config;
mod scripts;

use std::fmt;
use std::time::Duration;

use futures::StreamExt;
use redis::aio::{ConnectionManager, ConnectionManagerConfig};
use redis::{
    Client, ClientTlsConfig, ConnectionAddr, IntoConnectionInfo, RedisConnectionInfo, RedisError,
    TlsCertificates,
};
use tokio::sync::mpsc;

pub use config::{ConfigError, Password, RedisConfig, Tls};
use scripts::Scripts;

use crate::backend::{Backend, Cursor, Page, Size, Swap, Window, ttl_millis};
use crate::error::{ErrorKind, Op, StoreError, StoreName};
use crate::namespace::Namespace;
use crate::pubsub::{BACKLOG, Delivery, Forwarder, Subscription};

/// The Redis keys of one namespace (see `scripts.rs`).
struct Keys([Vec<u8>; 4]);

impl Keys {
    fn of(ns: &Namespace) -> Keys {
        let key = |kind: u8| {
            let mut key = prefix(ns);
            key.push(kind);
            key
        };
        Keys([key(b'h'), key(b'i'), key(b'x'), key(b'b')])
    }
}

/// `mwh1{NS}`: the version of the layout and the namespace as hash tag.
fn prefix(ns: &Namespace) -> Vec<u8> {
    format!("mwh1{{{}}}", ns.encoded()).into_bytes()
}

/// The channel of a topic: `mwh1{NS}c` and the topic.
fn channel(ns: &Namespace, topic: &[u8]) -> Vec<u8> {
    let mut channel = prefix(ns);
    channel.push(b'c');
    channel.extend_from_slice(topic);
    channel
}

pub(crate) struct Redis {
    client: Client,
    manager: ConnectionManager,
    scripts: Scripts,
    name: StoreName,
    password: Option<Password>,
    connect_timeout: Duration,
}

impl fmt::Debug for Redis {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Redis").field("name", &self.name).finish()
    }
}

impl Redis {
    pub(crate) fn new(config: RedisConfig) -> Result<Redis, StoreError> {
        let name = StoreName::Redis {
            host: config.host.clone(),
            port: config.port,
            db: config.db,
        };
        let scrub = Scrubber(config.password.clone());
        let fail = |e: RedisError| StoreError {
            store: name.clone(),
            op: Op::Open,
            kind: scrub.kind(&e),
        };
        let mut login = RedisConnectionInfo::default().set_db(config.db);
        if let Some(username) = &config.username {
            login = login.set_username(username);
        }
        if let Some(password) = &config.password {
            login = login.set_password(password.expose());
        }
        let address = match &config.tls {
            None => ConnectionAddr::Tcp(config.host.clone(), config.port),
            Some(_) => ConnectionAddr::TcpTls {
                host: config.host.clone(),
                port: config.port,
                insecure: false,
                tls_params: None,
            },
        };
        let info = address
            .into_connection_info()
            .map_err(fail)?
            .set_redis_settings(login);
        let client = match config.tls {
            Some(Tls { roots, identity }) if roots.is_some() || identity.is_some() => {
                let certificates = TlsCertificates {
                    client_tls: identity.map(|(client_cert, client_key)| ClientTlsConfig {
                        client_cert,
                        client_key,
                    }),
                    root_cert: roots,
                };
                Client::build_with_tls(info, certificates).map_err(fail)?
            }
            _ => Client::open(info).map_err(fail)?,
        };
        // Reconnects quickly and briefly: each operation has its own
        // deadline (the store's timeout), and an operation that finds the
        // connection down starts a new attempt.
        let manager_config = ConnectionManagerConfig::new()
            .set_connection_timeout(Some(config.connect_timeout))
            .set_response_timeout(None)
            .set_number_of_retries(1)
            .set_min_delay(Duration::from_millis(50))
            .set_max_delay(Duration::from_millis(500));
        let manager = ConnectionManager::new_lazy_with_config(client.clone(), manager_config)
            .map_err(fail)?;
        Ok(Redis {
            client,
            manager,
            scripts: Scripts::new(),
            name,
            password: config.password,
            connect_timeout: config.connect_timeout,
        })
    }

    fn scrubber(&self) -> Scrubber {
        Scrubber(self.password.clone())
    }

    /// Runs a script on the namespace's keys with `args`.
    async fn run<T: redis::FromRedisValue>(
        &self,
        script: &redis::Script,
        ns: &Namespace,
        args: impl IntoIterator<Item = Vec<u8>>,
    ) -> Result<T, ErrorKind> {
        let mut invocation = script.prepare_invoke();
        for key in Keys::of(ns).0 {
            invocation.key(key);
        }
        for arg in args {
            invocation.arg(arg);
        }
        let mut connection = self.manager.clone();
        invocation
            .invoke_async(&mut connection)
            .await
            .map_err(|e| self.scrubber().kind(&e))
    }
}

/// Turns the client's errors into the store's, without the password.
#[derive(Clone)]
struct Scrubber(Option<Password>);

impl Scrubber {
    fn kind(&self, error: &RedisError) -> ErrorKind {
        let mut text = error.to_string();
        if let Some(password) = &self.0
            && !password.expose().is_empty()
        {
            text = text.replace(password.expose(), "<password>");
        }
        if error.is_io_error()
            || error.is_connection_refusal()
            || error.is_connection_dropped()
            || error.is_timeout()
        {
            ErrorKind::Unavailable(text)
        } else {
            ErrorKind::Backend(text)
        }
    }
}

fn number(n: impl ToString) -> Vec<u8> {
    n.to_string().into_bytes()
}

fn ttl_arg(ttl: Option<Duration>) -> Vec<u8> {
    number(ttl.map_or(0, ttl_millis))
}

/// The error text of `HINCRBY` as the store's error.
fn increment_error(text: &[u8]) -> ErrorKind {
    let text = String::from_utf8_lossy(text);
    if text.contains("not an integer") {
        ErrorKind::NotAnInteger
    } else if text.contains("overflow") {
        ErrorKind::Overflow
    } else {
        ErrorKind::Backend(text.into_owned())
    }
}

fn parse_i64(text: &[u8]) -> Result<i64, ErrorKind> {
    std::str::from_utf8(text)
        .ok()
        .and_then(|t| t.parse().ok())
        .ok_or_else(|| ErrorKind::Backend("the server answered with a malformed integer".into()))
}

#[async_trait::async_trait]
impl Backend for Redis {
    fn name(&self) -> &StoreName {
        &self.name
    }

    async fn get_many(
        &self,
        ns: &Namespace,
        keys: Vec<Vec<u8>>,
    ) -> Result<Vec<Option<Vec<u8>>>, ErrorKind> {
        if keys.is_empty() {
            return Ok(Vec::new());
        }
        self.run(&self.scripts.get_many, ns, keys).await
    }

    async fn exists(&self, ns: &Namespace, key: Vec<u8>) -> Result<bool, ErrorKind> {
        let found: i64 = self.run(&self.scripts.exists, ns, [key]).await?;
        Ok(found == 1)
    }

    async fn set_many(
        &self,
        ns: &Namespace,
        entries: Vec<(Vec<u8>, Vec<u8>)>,
        ttl: Option<Duration>,
    ) -> Result<(), ErrorKind> {
        if entries.is_empty() {
            return Ok(());
        }
        let args = std::iter::once(ttl_arg(ttl))
            .chain(entries.into_iter().flat_map(|(key, value)| [key, value]));
        let _: i64 = self.run(&self.scripts.set_many, ns, args).await?;
        Ok(())
    }

    async fn delete_many(&self, ns: &Namespace, keys: Vec<Vec<u8>>) -> Result<u64, ErrorKind> {
        if keys.is_empty() {
            return Ok(0);
        }
        self.run(&self.scripts.delete_many, ns, keys).await
    }

    async fn list(
        &self,
        ns: &Namespace,
        after: Option<Vec<u8>>,
        limit: usize,
    ) -> Result<Page, ErrorKind> {
        let start = match after {
            Some(key) => [b"(".as_slice(), key.as_slice()].concat(),
            None => b"-".to_vec(),
        };
        let budget = limit.saturating_mul(4).saturating_add(1000);
        let (more, last, keys): (i64, Vec<u8>, Vec<Vec<u8>>) = self
            .run(
                &self.scripts.list,
                ns,
                [start, number(limit), number(budget)],
            )
            .await?;
        let next = (more == 1).then(|| Cursor::from_bytes(last));
        Ok(Page { keys, next })
    }

    async fn increment(&self, ns: &Namespace, key: Vec<u8>, delta: i64) -> Result<i64, ErrorKind> {
        let (ok, value): (i64, Vec<u8>) = self
            .run(&self.scripts.increment, ns, [key, number(delta)])
            .await?;
        if ok != 1 {
            return Err(increment_error(&value));
        }
        parse_i64(&value)
    }

    async fn compare_and_swap(
        &self,
        ns: &Namespace,
        key: Vec<u8>,
        expected: Option<Vec<u8>>,
        new: Vec<u8>,
        ttl: Option<Duration>,
    ) -> Result<Swap, ErrorKind> {
        let (flag, expected) = match expected {
            Some(value) => (b"1".to_vec(), value),
            None => (b"0".to_vec(), Vec::new()),
        };
        let args = [key, flag, expected, new, ttl_arg(ttl)];
        let (swapped, present, current): (i64, i64, Vec<u8>) =
            self.run(&self.scripts.compare_and_swap, ns, args).await?;
        Ok(if swapped == 1 {
            Swap::Swapped
        } else {
            Swap::Conflict {
                current: (present == 1).then_some(current),
            }
        })
    }

    async fn count_in_window(
        &self,
        ns: &Namespace,
        key: Vec<u8>,
        window: Duration,
        amount: u32,
    ) -> Result<Window, ErrorKind> {
        let args = [key, number(amount), number(ttl_millis(window))];
        let (ok, count, left): (i64, Vec<u8>, Vec<u8>) =
            self.run(&self.scripts.count_in_window, ns, args).await?;
        if ok != 1 {
            return Err(increment_error(&count));
        }
        let left = u64::try_from(parse_i64(&left)?).unwrap_or(0);
        Ok(Window {
            count: u64::try_from(parse_i64(&count)?).unwrap_or(0),
            resets_in: Duration::from_millis(left),
        })
    }

    async fn size(&self, ns: &Namespace) -> Result<Size, ErrorKind> {
        let (keys, bytes): (u64, Vec<u8>) = self.run(&self.scripts.size, ns, []).await?;
        let bytes = u64::try_from(parse_i64(&bytes)?).unwrap_or(0);
        Ok(Size { keys, bytes })
    }

    async fn drop_namespace(&self, ns: &Namespace) -> Result<(), ErrorKind> {
        let mut unlink = redis::cmd("UNLINK");
        for key in Keys::of(ns).0 {
            unlink.arg(key);
        }
        let mut connection = self.manager.clone();
        unlink
            .exec_async(&mut connection)
            .await
            .map_err(|e| self.scrubber().kind(&e))
    }

    async fn publish(
        &self,
        ns: &Namespace,
        topic: Vec<u8>,
        message: Vec<u8>,
    ) -> Result<(), ErrorKind> {
        let mut connection = self.manager.clone();
        redis::cmd("PUBLISH")
            .arg(channel(ns, &topic))
            .arg(message)
            .exec_async(&mut connection)
            .await
            .map_err(|e| self.scrubber().kind(&e))
    }

    async fn subscribe(&self, ns: &Namespace, topic: Vec<u8>) -> Result<Subscription, ErrorKind> {
        let listener = Listener {
            client: self.client.clone(),
            channel: channel(ns, &topic),
            scrub: self.scrubber(),
            connect_timeout: self.connect_timeout,
        };
        let first = listener.connect().await?;
        let (sender, deliveries) = mpsc::channel(BACKLOG);
        let task = tokio::spawn(listener.forward(first, Forwarder::new(sender)));
        Ok(Subscription::new(self.name.clone(), deliveries, task))
    }
}

/// One subscription's connection, made again when it drops.
struct Listener {
    client: Client,
    channel: Vec<u8>,
    scrub: Scrubber,
    connect_timeout: Duration,
}

type Messages = futures::stream::BoxStream<'static, redis::Msg>;

impl Listener {
    /// Connects and subscribes; returns once the server confirmed.
    async fn connect(&self) -> Result<Messages, ErrorKind> {
        let work = async {
            let mut pubsub = self.client.get_async_pubsub().await?;
            pubsub.subscribe(&self.channel).await?;
            Ok::<_, RedisError>(pubsub.into_on_message().boxed())
        };
        match tokio::time::timeout(self.connect_timeout, work).await {
            Ok(Ok(messages)) => Ok(messages),
            Ok(Err(e)) => Err(self.scrub.kind(&e)),
            Err(_) => Err(ErrorKind::Timeout(self.connect_timeout)),
        }
    }

    /// Passes messages on until the subscriber is gone; when the
    /// connection drops, reports the gap and subscribes again (backing off
    /// up to 2 s between attempts).
    async fn forward(self, mut messages: Messages, mut forwarder: Forwarder) {
        loop {
            loop {
                tokio::select! {
                    () = forwarder.closed() => return,
                    message = messages.next() => match message {
                        Some(message) => {
                            let payload = message.get_payload_bytes().to_vec();
                            if !forwarder.send(Delivery::Message(payload)) {
                                return;
                            }
                        }
                        None => break,
                    },
                }
            }
            let gap = Delivery::Gap(
                "the connection to the store was lost; messages published until it is back are not delivered"
                    .into(),
            );
            if !forwarder.send(gap) {
                return;
            }
            let mut delay = Duration::from_millis(50);
            messages = loop {
                tokio::select! {
                    () = forwarder.closed() => return,
                    () = tokio::time::sleep(delay) => {}
                }
                match self.connect().await {
                    Ok(messages) => break messages,
                    Err(kind) => {
                        tracing::debug!("resubscribing to the store failed: {kind}");
                        delay = (delay * 2).min(Duration::from_secs(2));
                    }
                }
            };
        }
    }
}
