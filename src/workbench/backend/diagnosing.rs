//! The connection doctor for a server card: the core's walk, off the UI thread, with the
//! secrets and kept sign-ins the window's own connections use (never a new sign-in).

use toolscope_core::{
    auth::AuthOptions,
    doctor,
    session::{ConnectOptions, ServerConfig, Timeouts, events::ignore_events},
};

use super::{Backend, BackendEvent, window_secrets};

impl Backend {
    /// Diagnoses the server `label` as configured (placeholders filled); reports
    /// [`BackendEvent::Diagnosed`] with `generation`.
    pub fn diagnose(
        &self,
        generation: u64,
        label: String,
        config: ServerConfig,
        timeouts: Timeouts,
    ) {
        let emit = self.emitter();
        let secrets = self.secrets.clone();
        self.runtime.spawn(async move {
            let mut options = ConnectOptions::new(timeouts, ignore_events());
            if let (ServerConfig::Http { .. }, Some(place)) = (&config, &secrets)
                && let Ok(store) = place.store().await
            {
                options.auth = Some(AuthOptions::new(store, None));
            }
            let diagnosis =
                doctor::diagnose(&label, &config, window_secrets(secrets), options).await;
            emit.send(BackendEvent::Diagnosed {
                generation,
                diagnosis,
            });
        });
    }
}
