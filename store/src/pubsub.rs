//! Publish/subscribe: the [`Subscription`] both backends hand out, and the
//! in-process hub of the embedded store. Delivery is at most once: a
//! message published while a subscriber is cut off (its connection lost,
//! or it fell behind) is not delivered later, and the subscriber is told
//! of the gap instead, so that it can read the state it follows again.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::sync::{broadcast, mpsc};
use tokio::task::JoinHandle;

use crate::Store;
use crate::error::{ErrorKind, Op, StoreError, StoreName};
use crate::namespace::Namespace;

/// How many messages wait for a slow subscriber before it misses some.
pub(crate) const BACKLOG: usize = 1024;

/// What a subscription's task passes on.
#[derive(Debug)]
pub(crate) enum Delivery {
    Message(Vec<u8>),
    /// Messages were missed, and why.
    Gap(String),
}

/// The messages published to one topic of one namespace, from when
/// [`crate::Store::subscribe`] returned. Dropping it unsubscribes.
#[derive(Debug)]
pub struct Subscription {
    store: StoreName,
    receiver: mpsc::Receiver<Delivery>,
    task: JoinHandle<()>,
}

impl Subscription {
    pub(crate) fn new(
        store: StoreName,
        receiver: mpsc::Receiver<Delivery>,
        task: JoinHandle<()>,
    ) -> Subscription {
        Subscription {
            store,
            receiver,
            task,
        }
    }

    /// The next message; an error ([`ErrorKind::MissedMessages`]) when some
    /// were missed, after which messages follow again; `None` once the
    /// store is gone.
    pub async fn next(&mut self) -> Option<Result<Vec<u8>, StoreError>> {
        Some(match self.receiver.recv().await? {
            Delivery::Message(message) => Ok(message),
            Delivery::Gap(why) => Err(StoreError {
                store: self.store.clone(),
                op: Op::Receive,
                kind: ErrorKind::MissedMessages(why),
            }),
        })
    }
}

impl Drop for Subscription {
    fn drop(&mut self) {
        self.task.abort();
    }
}

/// What a follower ([`Store::follow`]) hears.
#[derive(Debug)]
pub enum Heard<'a> {
    /// One message.
    Message(&'a [u8]),
    /// Messages were missed (the subscriber fell behind, or its connection
    /// was lost and opened again): the state the messages describe should
    /// be read again, or the gap's cost accepted.
    Gap(&'a StoreError),
}

/// How long a follower waits before subscribing again.
const RESUBSCRIBE: Duration = Duration::from_secs(1);

impl Store {
    /// Follows one topic for as long as the returned future is polled
    /// (it never ends): subscribes, hands each message and each reported
    /// gap to `on`, and subscribes again, a second later, whenever
    /// subscribing fails or the subscription ends. `what` names the
    /// follower in the log lines. Delivery is at most once: messages
    /// published while no subscription is open are not delivered later.
    pub async fn follow(
        &self,
        ns: &Namespace,
        topic: &[u8],
        what: &str,
        mut on: impl FnMut(Heard<'_>),
    ) {
        loop {
            let mut subscription = match self.subscribe(ns, topic).await {
                Ok(subscription) => subscription,
                Err(e) => {
                    tracing::warn!(error = %e, "not yet following {what}");
                    tokio::time::sleep(RESUBSCRIBE).await;
                    continue;
                }
            };
            while let Some(message) = subscription.next().await {
                match message {
                    Ok(bytes) => on(Heard::Message(&bytes)),
                    Err(e) if matches!(e.kind, ErrorKind::MissedMessages(_)) => on(Heard::Gap(&e)),
                    Err(e) => tracing::warn!(error = %e, "a message of {what}"),
                }
            }
            tokio::time::sleep(RESUBSCRIBE).await;
        }
    }
}

/// Passes deliveries to a subscriber without ever waiting for it: when its
/// backlog is full, messages are counted as missed and a gap is reported
/// once there is room.
#[derive(Debug)]
pub(crate) struct Forwarder {
    sender: mpsc::Sender<Delivery>,
    missed: u64,
}

impl Forwarder {
    pub(crate) fn new(sender: mpsc::Sender<Delivery>) -> Forwarder {
        Forwarder { sender, missed: 0 }
    }

    /// Passes one delivery on; false once the subscriber is gone.
    pub(crate) fn send(&mut self, delivery: Delivery) -> bool {
        if self.missed > 0 {
            let gap = Delivery::Gap(format!(
                "the subscriber fell {} messages behind",
                self.missed
            ));
            match self.sender.try_send(gap) {
                Ok(()) => self.missed = 0,
                Err(mpsc::error::TrySendError::Full(_)) => {
                    self.missed += 1;
                    return true;
                }
                Err(mpsc::error::TrySendError::Closed(_)) => return false,
            }
        }
        match self.sender.try_send(delivery) {
            Ok(()) => true,
            Err(mpsc::error::TrySendError::Full(_)) => {
                self.missed += 1;
                true
            }
            Err(mpsc::error::TrySendError::Closed(_)) => false,
        }
    }

    /// Resolves once the subscriber is gone.
    pub(crate) async fn closed(&self) {
        self.sender.closed().await
    }
}

/// The embedded store's channels: one broadcast channel per topic, made by
/// the first subscriber and dropped when a publish finds no one listening.
#[derive(Debug, Default, Clone)]
pub(crate) struct Hub {
    channels: Arc<Mutex<Channels>>,
}

/// A broadcast channel per stored topic.
type Channels = HashMap<Vec<u8>, broadcast::Sender<Vec<u8>>>;

impl Hub {
    pub(crate) fn publish(&self, channel: Vec<u8>, message: Vec<u8>) {
        let mut channels = self.channels.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(sender) = channels.get(&channel)
            && sender.send(message).is_err()
        {
            channels.remove(&channel);
        }
    }

    pub(crate) fn subscribe(&self, store: StoreName, channel: Vec<u8>) -> Subscription {
        let mut receiver = {
            let mut channels = self.channels.lock().unwrap_or_else(|e| e.into_inner());
            channels
                .entry(channel)
                .or_insert_with(|| broadcast::channel(BACKLOG).0)
                .subscribe()
        };
        let (sender, deliveries) = mpsc::channel(BACKLOG);
        let mut forwarder = Forwarder::new(sender);
        let task = tokio::spawn(async move {
            loop {
                let delivery = tokio::select! {
                    () = forwarder.closed() => return,
                    received = receiver.recv() => match received {
                        Ok(message) => Delivery::Message(message),
                        Err(broadcast::error::RecvError::Lagged(n)) => {
                            Delivery::Gap(format!("the subscriber fell {n} messages behind"))
                        }
                        Err(broadcast::error::RecvError::Closed) => return,
                    },
                };
                if !forwarder.send(delivery) {
                    return;
                }
            }
        });
        Subscription::new(store, deliveries, task)
    }
}
