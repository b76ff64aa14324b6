//! Group commit: the embedded store's writes go to one thread, which runs
//! every write waiting at that moment, one after another, in one
//! transaction, and syncs the file once for all of them. Each caller hears
//! of its write once the transaction is committed. A write that fails with
//! its own error (not an integer, overflow) changed nothing and leaves the
//! others be; a failure of the file fails the whole batch, uncommitted.

use std::sync::Arc;
use std::sync::mpsc;

use redb::{Database, WriteTransaction};
use tokio::sync::oneshot;

use super::tables::Tables;
use crate::error::ErrorKind;

/// The most writes one transaction takes.
const MAX_BATCH: usize = 512;

/// A write transaction; recovery after a crash then reads the allocator
/// state the last commit saved instead of walking the whole file.
fn begin(db: &Database) -> Result<WriteTransaction, ErrorKind> {
    let mut txn = db.begin_write()?;
    txn.set_quick_repair(true);
    Ok(txn)
}

/// Runs `work` in a transaction of its own on this thread (the sweeper's
/// writes): committed if it changed anything.
pub(super) fn write_now<T>(
    db: &Database,
    work: impl FnOnce(&mut Tables<'_>) -> Result<T, ErrorKind>,
) -> Result<T, ErrorKind> {
    let txn = begin(db)?;
    let (out, dirty) = {
        let mut tables = Tables::open(&txn)?;
        let out = work(&mut tables)?;
        (out, tables.dirty)
    };
    finish(txn, dirty)?;
    Ok(out)
}

fn finish(txn: WriteTransaction, dirty: bool) -> Result<(), ErrorKind> {
    if dirty {
        txn.commit()?;
    } else {
        txn.abort()?;
    }
    Ok(())
}

/// One caller's write, waiting for its batch.
trait Job: Send {
    /// Runs the write; an error only when the file failed (the batch is
    /// then abandoned).
    fn run(&mut self, tables: &mut Tables<'_>) -> Result<(), ErrorKind>;
    /// Answers the caller with the batch's fate.
    fn finish(self: Box<Self>, committed: Result<(), ErrorKind>);
}

struct Pending<T, F> {
    work: Option<F>,
    out: Option<Result<T, ErrorKind>>,
    reply: oneshot::Sender<Result<T, ErrorKind>>,
}

impl<T, F> Job for Pending<T, F>
where
    T: Send,
    F: FnOnce(&mut Tables<'_>) -> Result<T, ErrorKind> + Send,
{
    fn run(&mut self, tables: &mut Tables<'_>) -> Result<(), ErrorKind> {
        let Some(work) = self.work.take() else {
            return Ok(());
        };
        let out = work(tables);
        let failed = match &out {
            Err(kind @ ErrorKind::Backend(_)) => Err(kind.clone()),
            _ => Ok(()),
        };
        self.out = Some(out);
        failed
    }

    fn finish(self: Box<Self>, committed: Result<(), ErrorKind>) {
        let answer = match (self.out, committed) {
            (Some(Err(own)), _) => Err(own),
            (_, Err(kind)) => Err(kind),
            (Some(Ok(out)), Ok(())) => Ok(out),
            (None, Ok(())) => Err(ErrorKind::Backend("the write was not run".into())),
        };
        // A caller that gave up (its timeout) no longer listens.
        let _ = self.reply.send(answer);
    }
}

/// The writer thread's queue. Dropping it ends the thread, which then lets
/// go of the file.
#[derive(Debug)]
pub(super) struct Writer {
    jobs: mpsc::Sender<Box<dyn Job>>,
}

impl Writer {
    pub(super) fn start(db: Arc<Database>) -> Result<Writer, ErrorKind> {
        let (jobs, queue) = mpsc::channel::<Box<dyn Job>>();
        std::thread::Builder::new()
            .name("store-writer".into())
            .spawn(move || serve(&db, &queue))
            .map_err(|e| ErrorKind::Backend(format!("cannot start the store's writer: {e}")))?;
        Ok(Writer { jobs })
    }

    /// Runs `work` in the next batch and returns its result once the batch
    /// is committed.
    pub(super) async fn write<T, F>(&self, work: F) -> Result<T, ErrorKind>
    where
        T: Send + 'static,
        F: FnOnce(&mut Tables<'_>) -> Result<T, ErrorKind> + Send + 'static,
    {
        let stopped = || ErrorKind::Backend("the store's writer has stopped".into());
        let (reply, answer) = oneshot::channel();
        let job = Pending {
            work: Some(work),
            out: None,
            reply,
        };
        self.jobs.send(Box::new(job)).map_err(|_| stopped())?;
        answer.await.map_err(|_| stopped())?
    }
}

fn serve(db: &Database, queue: &mpsc::Receiver<Box<dyn Job>>) {
    while let Ok(first) = queue.recv() {
        let mut batch = vec![first];
        while batch.len() < MAX_BATCH {
            match queue.try_recv() {
                Ok(job) => batch.push(job),
                Err(_) => break,
            }
        }
        let committed = commit(db, &mut batch);
        for job in batch {
            job.finish(committed.clone());
        }
    }
}

fn commit(db: &Database, batch: &mut [Box<dyn Job>]) -> Result<(), ErrorKind> {
    let txn = begin(db)?;
    let dirty = {
        let mut tables = Tables::open(&txn)?;
        for job in batch.iter_mut() {
            job.run(&mut tables)?;
        }
        tables.dirty
    };
    finish(txn, dirty)
}
