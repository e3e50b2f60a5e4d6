//! Who recorded a row: the machine and the person, so a team's shared history can say whose
//! call it is and be narrowed to one of them.

/// The variable that names this machine in a shared history (a CI runner's host name is
/// random; a person may prefer "laptop").
pub const MACHINE_VARIABLE: &str = "TOOLSCOPE_MACHINE";
/// The variable that names the person (else the setting, else the OS user).
pub const PERSON_VARIABLE: &str = "TOOLSCOPE_PERSON";

/// The machine and the person a store stamps on every row it records.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RecordedBy {
    pub machine: String,
    pub person: String,
}

impl RecordedBy {
    /// This machine (`TOOLSCOPE_MACHINE`, else its host name) and this person
    /// (`TOOLSCOPE_PERSON`, else `person` from the settings, else the OS user).
    pub fn here(person_setting: Option<&str>) -> Self {
        let named = |variable: &str| {
            std::env::var(variable)
                .ok()
                .map(|value| value.trim().to_owned())
                .filter(|value| !value.is_empty())
        };
        let machine = named(MACHINE_VARIABLE)
            .or_else(|| whoami::hostname().ok())
            .unwrap_or_else(|| "unknown machine".to_owned());
        let person = named(PERSON_VARIABLE)
            .or_else(|| {
                person_setting
                    .map(str::trim)
                    .filter(|person| !person.is_empty())
                    .map(str::to_owned)
            })
            .or_else(|| whoami::username().ok())
            .unwrap_or_else(|| "unknown person".to_owned());
        Self { machine, person }
    }
}

#[cfg(test)]
impl RecordedBy {
    /// "a machine" and "a tester".
    pub(crate) fn tester() -> Self {
        Self {
            machine: "a machine".to_owned(),
            person: "a tester".to_owned(),
        }
    }
}
