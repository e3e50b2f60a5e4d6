//! What a server tells without being asked again: its lists changing and the resources
//! subscribed to being updated. Before 2026-07-28 the notifications simply arrive (a resource
//! after `resources/subscribe`); from 2026-07-28 only on a `subscriptions/listen` stream whose
//! filter names what the client wants, so each subscription opens that stream anew with the
//! whole set.

use std::collections::BTreeSet;

use rmcp::model::{
    ClientRequest, ServerNotification, SubscribeRequestParams, SubscriptionFilter,
    UnsubscribeRequestParams,
};
#[allow(
    deprecated,
    reason = "resources/subscribe is how servers before 2026-07-28 take a subscription"
)]
use rmcp::model::{SubscribeRequest, UnsubscribeRequest};
use serde_json::Value;
use tokio_util::sync::CancellationToken;

use crate::session::{
    RequestControl, SessionEvent,
    connection::Session,
    requests::server_features::{FeatureError, result_of},
};

impl Session {
    /// Asks for `notifications/resources/updated` about `uri` (they arrive as
    /// [`SessionEvent::ResourceUpdated`]), or stops asking (`on` false).
    #[allow(
        deprecated,
        reason = "resources/subscribe is how servers before 2026-07-28 take a subscription"
    )]
    pub async fn subscribe(
        &self,
        uri: &str,
        on: bool,
        control: &RequestControl,
    ) -> Result<(), FeatureError> {
        if self.summary.is_modern_era() {
            let wanted = self.note_subscription(uri, on);
            self.stop_listening().await;
            let listener = self.listen_for_changes(&wanted);
            *self
                .listener
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner) = listener;
            return Ok(());
        }
        let (request, label) = if on {
            (
                ClientRequest::SubscribeRequest(SubscribeRequest::new(
                    SubscribeRequestParams::new(uri),
                )),
                format!("resources/subscribe {uri}"),
            )
        } else {
            (
                ClientRequest::UnsubscribeRequest(UnsubscribeRequest::new(
                    UnsubscribeRequestParams::new(uri),
                )),
                format!("resources/unsubscribe {uri}"),
            )
        };
        let (response, _, _) = self.request_raw(request, &label, control).await?;
        result_of(&response)?;
        self.note_subscription(uri, on);
        Ok(())
    }

    /// Adds `uri` to the subscriptions (or takes it out); the set as it is now.
    fn note_subscription(&self, uri: &str, on: bool) -> BTreeSet<String> {
        let mut subscribed = self
            .subscribed
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        if on {
            subscribed.insert(uri.to_owned());
        } else {
            subscribed.remove(uri);
        }
        subscribed.clone()
    }

    /// On 2026-07-28 and later, list changes and resource updates only arrive on a
    /// `subscriptions/listen` stream: opens one for the lists the server says can change and
    /// the resources in `resources` (none: no stream).
    pub(in crate::session) fn listen_for_changes(
        &self,
        resources: &BTreeSet<String>,
    ) -> Option<(CancellationToken, tokio::task::JoinHandle<()>)> {
        if !self.summary.is_modern_era() {
            return None;
        }
        let capabilities = &self.summary.capabilities;
        let can_change = |list: &str| capabilities[list]["listChanged"] == Value::Bool(true);
        let mut filter = SubscriptionFilter::builder();
        let mut any = false;
        if can_change("tools") {
            filter = filter.tools_list_changed();
            any = true;
        }
        if can_change("resources") {
            filter = filter.resources_list_changed();
            any = true;
        }
        if can_change("prompts") {
            filter = filter.prompts_list_changed();
            any = true;
        }
        if !resources.is_empty() {
            filter = filter.resource_subscriptions(resources.iter().cloned());
            any = true;
        }
        if !any {
            return None;
        }
        let filter = filter.build();
        let peer = self.service.peer().clone();
        let events = self.events.clone();
        let stop = CancellationToken::new();
        let stopped = stop.clone();
        let task = tokio::spawn(async move {
            let Ok(mut subscription) = peer.listen(filter).await else {
                return;
            };
            loop {
                let next = tokio::select! {
                    next = subscription.next() => next,
                    () = stopped.cancelled() => {
                        let _ = subscription.cancel().await;
                        return;
                    }
                };
                let Ok(Some(notification)) = next else { return };
                if let Some(event) = change_event(notification) {
                    events(event);
                }
            }
        });
        Some((stop, task))
    }

    /// Ends the `subscriptions/listen` stream, if one is open: a server may wait on it and so
    /// not exit when its stdin closes.
    pub(in crate::session) async fn stop_listening(&self) {
        let listener = self
            .listener
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .take();
        if let Some((stop, task)) = listener {
            stop.cancel();
            let _ = tokio::time::timeout(std::time::Duration::from_secs(1), task).await;
        }
    }
}

/// The event a notification on the listen stream is.
fn change_event(notification: ServerNotification) -> Option<SessionEvent> {
    match notification {
        ServerNotification::ToolListChangedNotification(_) => Some(SessionEvent::ToolListChanged),
        ServerNotification::ResourceListChangedNotification(_) => {
            Some(SessionEvent::OtherListChanged { list: "resources" })
        }
        ServerNotification::PromptListChangedNotification(_) => {
            Some(SessionEvent::OtherListChanged { list: "prompts" })
        }
        ServerNotification::ResourceUpdatedNotification(updated) => {
            Some(SessionEvent::ResourceUpdated {
                uri: updated.params.uri,
            })
        }
        _ => None,
    }
}
