//! Listing a server's tools, one list at a time per connection. A `list_changed` is taken up
//! where the session tells it (not a frame later in the window), and one told while a list is
//! under way asks for one more list when that ends, however many were told: server-everything
//! tells five as it starts, and each used to cost a `tools/list` of its own.

use std::{
    collections::HashMap,
    sync::{Arc, Mutex},
};

use super::{BackendEvent, Catalogs, Emitter, ServerId, ToolListUpdate, lock, since_last_time};
use crate::workbench::ToolChanges;
use toolscope_core::session::{Session, Timeouts, ToolCatalog};

/// How long changes told in a burst are gathered before the list that answers them (a
/// session may hand over notifications the server sent before a list's answer just after it).
const GATHER: std::time::Duration = std::time::Duration::from_millis(100);

/// The list under way for each server: of which connection attempt, and whether to list
/// again after it.
type Listings = Arc<Mutex<HashMap<ServerId, Listing>>>;

struct Listing {
    epoch: u64,
    again: bool,
}

/// What listing a server's tools needs; cloned into each connection's tasks.
#[derive(Clone)]
pub(super) struct ToolLister {
    pub(super) sessions: Arc<Mutex<HashMap<ServerId, Arc<Session>>>>,
    pub(super) epochs: Arc<Mutex<HashMap<ServerId, u64>>>,
    pub(super) catalogs: Catalogs,
    listings: Listings,
    /// Each server's last interface across connections (`None`: not kept).
    pub(super) interfaces: Option<toolscope_core::interface::InterfaceStore>,
    pub(super) emit: Emitter,
}

impl ToolLister {
    pub(super) fn new(
        sessions: Arc<Mutex<HashMap<ServerId, Arc<Session>>>>,
        epochs: Arc<Mutex<HashMap<ServerId, u64>>>,
        catalogs: Catalogs,
        emit: Emitter,
    ) -> Self {
        Self {
            sessions,
            epochs,
            catalogs,
            listings: Arc::default(),
            interfaces: None,
            emit,
        }
    }

    /// Lists the tools of connection `epoch` of `server` again (a `list_changed`, Refresh;
    /// what changed within a connection is told by the list's changes, not "since last time"): at once,
    /// or after the list under way. Nothing while the connection is not ready yet (its first
    /// list comes after whatever it was told).
    pub(super) fn request(&self, server: ServerId, epoch: u64, label: String, timeouts: Timeouts) {
        if lock(&self.epochs).get(&server) != Some(&epoch) {
            return;
        }
        let Some(session) = lock(&self.sessions).get(&server).cloned() else {
            return;
        };
        if !self.begin(server, epoch) {
            return;
        }
        let lister = self.clone();
        tokio::spawn(async move {
            lister.gather(server, epoch).await;
            lister
                .list_until_settled(&session, server, epoch, label, timeouts, false)
                .await;
        });
    }

    /// Whether the caller lists now: `false` when a list of this connection is under way
    /// (it lists once more when it ends). A new connection always lists.
    pub(super) fn begin(&self, server: ServerId, epoch: u64) -> bool {
        let mut listings = lock(&self.listings);
        match listings.get_mut(&server) {
            Some(listing) if listing.epoch == epoch => {
                listing.again = true;
                false
            }
            _ => {
                let again = false;
                listings.insert(server, Listing { epoch, again });
                true
            }
        }
    }

    /// Lists the tools until no change was told during the last list; reports each list and
    /// keeps the last one as the server's interface (saying what changed since the last
    /// connection when `tell_since_last_time`: what changes within one is told as it happens).
    pub(super) async fn list_until_settled(
        &self,
        session: &Session,
        server: ServerId,
        epoch: u64,
        label: String,
        timeouts: Timeouts,
        tell_since_last_time: bool,
    ) -> Option<Arc<ToolCatalog>> {
        let listed = loop {
            let listed = self.list_tools(session, server, timeouts).await;
            if !self.list_again(server, epoch) {
                break listed;
            }
            self.gather(server, epoch).await;
        };
        if let (Some(store), Some(catalog)) = (self.interfaces.clone(), listed.clone()) {
            let summary = session.summary().clone();
            let note = tokio::task::spawn_blocking(move || {
                since_last_time::compare_and_keep(&store, &label, &summary, &catalog)
            })
            .await;
            if let Ok(Some(note)) = note
                && tell_since_last_time
                && lock(&self.epochs).get(&server) == Some(&epoch)
            {
                self.emit.send(BackendEvent::SinceLastTime { server, note });
            }
        }
        listed
    }

    /// After a list: whether a change was told meanwhile; otherwise the listing of this
    /// connection ends.
    fn list_again(&self, server: ServerId, epoch: u64) -> bool {
        let mut listings = lock(&self.listings);
        match listings.get_mut(&server) {
            Some(listing) if listing.epoch == epoch => {
                if listing.again {
                    true
                } else {
                    listings.remove(&server);
                    false
                }
            }
            // A reconnect lists on its own.
            _ => false,
        }
    }

    /// Waits [`GATHER`] for the rest of a burst of changes, then takes them: the list that
    /// follows answers them all.
    async fn gather(&self, server: ServerId, epoch: u64) {
        tokio::time::sleep(GATHER).await;
        if let Some(listing) = lock(&self.listings).get_mut(&server)
            && listing.epoch == epoch
        {
            listing.again = false;
        }
    }

    /// Lists a server's tools and reports them with what changed since its last list.
    async fn list_tools(
        &self,
        session: &Session,
        server: ServerId,
        timeouts: Timeouts,
    ) -> Option<Arc<ToolCatalog>> {
        let result = match session.list_tools(timeouts).await {
            Ok(catalog) => {
                let catalog = Arc::new(catalog);
                let previous = lock(&self.catalogs).insert(server, catalog.clone());
                let changes = previous.map(|old| ToolChanges::between(&old, &catalog));
                Ok(ToolListUpdate { catalog, changes })
            }
            Err(error) => Err(error.to_string()),
        };
        let listed = result.as_ref().ok().map(|update| update.catalog.clone());
        self.emit.send(BackendEvent::Tools { server, result });
        listed
    }
}
