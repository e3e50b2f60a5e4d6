//! Diagnose on a server card: the connection doctor's walk asked of the backend with the
//! configuration a connection would use (placeholders filled), and its report kept until the
//! person closes it.

use std::time::Instant;

use toolscope_core::{
    doctor::{Diagnosis, Step},
    engine,
};

use super::Model;
use crate::workbench::{
    ServerId,
    server_diagnosis::{DiagnosisState, ServerDiagnosis},
};

impl Model {
    pub fn diagnosis(&self) -> Option<&ServerDiagnosis> {
        self.diagnosis.as_ref()
    }

    pub(super) fn diagnose(&mut self, id: ServerId) {
        self.diagnosis_generation += 1;
        let generation = self.diagnosis_generation;
        let Some(server) = self.server(id) else {
            return;
        };
        let name = server.name.clone();
        let given = &self.input_values;
        let filled = engine::fill_placeholders(
            &server.config,
            std::env::current_dir().ok().as_deref(),
            |input| given.get(&(id, input.to_owned())).cloned(),
        );
        let state = match filled {
            Ok(config) => {
                self.backend
                    .diagnose(generation, name.clone(), config, self.timeouts());
                DiagnosisState::Walking {
                    since: Instant::now(),
                }
            }
            Err(missing) => {
                let mut diagnosis = Diagnosis::default();
                diagnosis.push(Step::failed(
                    "settings",
                    missing.to_string(),
                    "set them in the environment Toolscope starts in, or edit the server",
                ));
                DiagnosisState::Done(diagnosis)
            }
        };
        self.diagnosis = Some(ServerDiagnosis {
            server: id,
            name,
            generation,
            state,
        });
    }

    pub(super) fn diagnosed(&mut self, generation: u64, diagnosis: Diagnosis) {
        if let Some(open) = self
            .diagnosis
            .as_mut()
            .filter(|open| open.generation == generation)
        {
            open.state = DiagnosisState::Done(diagnosis);
        }
    }
}
