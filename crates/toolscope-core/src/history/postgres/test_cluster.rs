//! A throwaway PostgreSQL server for tests: Debian's `postgresql` package's own binaries, a
//! cluster in a temporary folder on a free loopback port (run as the `postgres` user when the
//! tests run as root, as PostgreSQL refuses root), a password for TCP, and a database per
//! test. A watchdog shell stops the server and removes the folder once the test process has
//! gone, whichever way it ended.

#![allow(clippy::expect_used, reason = "test support fails loudly")]

use std::{
    path::{Path, PathBuf},
    process::{Command, Stdio},
    sync::OnceLock,
    time::{Duration, Instant},
};

use crate::history::PostgresUrl;

/// Why the test cluster could not start.
#[derive(Debug, Clone, thiserror::Error)]
#[error("{0}")]
pub struct ClusterProblem(String);

/// The superuser the cluster is made with.
pub const ADMIN: &str = "toolscope_admin";

/// A running cluster.
#[derive(Debug)]
pub struct TestCluster {
    port: u16,
    password: String,
    root: PathBuf,
}

/// The cluster of this test process, started on first use; `None` (said loudly) when
/// PostgreSQL is not installed here, which fails on CI (`CI=true`), where `.ci/run` installs it.
pub fn shared() -> Option<&'static TestCluster> {
    static CLUSTER: OnceLock<Result<TestCluster, ClusterProblem>> = OnceLock::new();
    match CLUSTER.get_or_init(|| TestCluster::start(false)) {
        Ok(cluster) => Some(cluster),
        Err(problem) => {
            let message = format!("no PostgreSQL server for the tests: {problem}");
            assert!(std::env::var("CI").as_deref() != Ok("true"), "{message}");
            eprintln!("\n!!!!!!!! SKIPPED: {message} !!!!!!!!\n");
            None
        }
    }
}

impl TestCluster {
    /// A cluster of its own that writes as a real server does (fsync on), for benchmarks.
    pub fn durable() -> Result<Self, ClusterProblem> {
        Self::start(true)
    }

    fn start(durable: bool) -> Result<Self, ClusterProblem> {
        let bin = binaries().ok_or_else(|| {
            ClusterProblem("initdb and postgres were not found (apt-get install postgresql)".into())
        })?;
        let as_postgres = is_root();
        let root = std::env::temp_dir().join(format!(
            "toolscope-pg-{}-{}",
            std::process::id(),
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(0, |since| since.as_nanos())
        ));
        std::fs::create_dir_all(&root).map_err(|error| ClusterProblem(error.to_string()))?;
        let password = format!("pw-{}", std::process::id());
        std::fs::write(root.join("password"), &password)
            .map_err(|error| ClusterProblem(error.to_string()))?;
        make_certificates(&root)?;
        if as_postgres {
            let owned = Command::new("chown")
                .args(["-R", "postgres:postgres"])
                .arg(&root)
                .status()
                .map_err(|error| ClusterProblem(error.to_string()))?;
            if !owned.success() {
                return Err(ClusterProblem("chown to the postgres user failed".into()));
            }
        }
        let data = root.join("data");
        let initdb = run_as(as_postgres, &bin.join("initdb"))
            .arg("-D")
            .arg(&data)
            .args([
                "-U",
                ADMIN,
                "--auth-local=trust",
                "--auth-host=scram-sha-256",
            ])
            .arg(format!("--pwfile={}", root.join("password").display()))
            .args(["-E", "UTF8", "--locale=C.UTF-8", "--no-sync"])
            .stdout(Stdio::null())
            .output()
            .map_err(|error| ClusterProblem(format!("initdb: {error}")))?;
        if !initdb.status.success() {
            return Err(ClusterProblem(format!(
                "initdb failed: {}",
                String::from_utf8_lossy(&initdb.stderr)
            )));
        }
        let port = free_port()?;
        let server = run_as(as_postgres, &bin.join("postgres"));
        let mut command: Vec<String> = std::iter::once(server.get_program())
            .chain(server.get_args())
            .map(|part| part.to_string_lossy().into_owned())
            .collect();
        command.extend(
            [
                "-D",
                &data.display().to_string(),
                "-p",
                &port.to_string(),
                "-k",
                &root.display().to_string(),
                "-c",
                "listen_addresses=127.0.0.1",
                "-c",
                if durable { "fsync=on" } else { "fsync=off" },
                "-c",
                "max_connections=200",
                // TLS offered (not required) with a certificate for localhost and 127.0.0.1
                // signed by the cluster's own authority (`ca.pem`).
                "-c",
                "ssl=on",
                "-c",
                &format!("ssl_cert_file={}", root.join("server.pem").display()),
                "-c",
                &format!("ssl_key_file={}", root.join("server.key").display()),
            ]
            .map(str::to_owned),
        );
        // The watchdog: the server runs while this process does, then goes with its folder.
        Command::new("sh")
            .arg("-c")
            .arg(
                r#"owner=$1; root=$2; shift 2
                "$@" >>"$root/server.log" 2>&1 &
                server=$!
                while kill -0 "$owner" 2>/dev/null && kill -0 "$server" 2>/dev/null; do
                    sleep 0.5
                done
                kill -INT "$server" 2>/dev/null; wait "$server"; rm -rf "$root""#,
            )
            .arg("watchdog")
            .arg(std::process::id().to_string())
            .arg(&root)
            .args(&command)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .map_err(|error| ClusterProblem(format!("starting postgres: {error}")))?;
        let cluster = Self {
            port,
            password,
            root,
        };
        cluster.wait_until_up()?;
        Ok(cluster)
    }

    fn wait_until_up(&self) -> Result<(), ClusterProblem> {
        let deadline = Instant::now() + Duration::from_secs(60);
        loop {
            let url = self.admin_url("postgres");
            match postgres::Client::connect(url.secret_text(), postgres::NoTls) {
                Ok(_) => return Ok(()),
                Err(error) if Instant::now() > deadline => {
                    let log =
                        std::fs::read_to_string(self.root.join("server.log")).unwrap_or_default();
                    return Err(ClusterProblem(format!(
                        "the server did not start: {error}\n{log}"
                    )));
                }
                Err(_) => std::thread::sleep(Duration::from_millis(100)),
            }
        }
    }

    pub fn port(&self) -> u16 {
        self.port
    }

    pub fn password(&self) -> &str {
        &self.password
    }

    /// The superuser's URL for `database`, with the password in it.
    pub fn admin_url(&self, database: &str) -> PostgresUrl {
        let text = format!(
            "postgres://{ADMIN}:{}@127.0.0.1:{}/{database}?sslmode=disable",
            self.password, self.port
        );
        PostgresUrl::parse(&text).expect("a test URL")
    }

    /// A new empty database for one test (its name from `hint`, made unique), and its URL
    /// with the password.
    pub fn new_database(&self, hint: &str) -> PostgresUrl {
        static NEXT: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(0);
        let n = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let cleaned: String = hint
            .chars()
            .map(|c| {
                if c.is_ascii_alphanumeric() {
                    c.to_ascii_lowercase()
                } else {
                    '_'
                }
            })
            .take(40)
            .collect();
        let name = format!("t{}_{n}_{cleaned}", std::process::id());
        let mut admin =
            postgres::Client::connect(self.admin_url("postgres").secret_text(), postgres::NoTls)
                .expect("the test cluster answers");
        // A name of ours (letters, digits and underscores), quoted: CREATE DATABASE binds none.
        admin
            .batch_execute(&format!("CREATE DATABASE \"{name}\""))
            .expect("a test database");
        self.admin_url(&name)
    }

    /// The authority that signed the server's certificate (for `sslrootcert`).
    pub fn ca_file(&self) -> PathBuf {
        self.root.join("ca.pem")
    }

    /// Where the cluster's files are.
    pub fn root(&self) -> &Path {
        &self.root
    }
}

/// The folder of `initdb` and `postgres`: Debian's newest `/usr/lib/postgresql/N/bin`, else
/// `pg_config --bindir`.
fn binaries() -> Option<PathBuf> {
    let mut versions: Vec<(u32, PathBuf)> = std::fs::read_dir("/usr/lib/postgresql")
        .ok()?
        .filter_map(Result::ok)
        .filter_map(|entry| {
            let version = entry.file_name().to_str()?.parse().ok()?;
            let bin = entry.path().join("bin");
            bin.join("postgres").exists().then_some((version, bin))
        })
        .collect();
    versions.sort();
    versions.pop().map(|(_, bin)| bin).or_else(|| {
        let output = Command::new("pg_config").arg("--bindir").output().ok()?;
        let bin = PathBuf::from(String::from_utf8(output.stdout).ok()?.trim());
        bin.join("postgres").exists().then_some(bin)
    })
}

/// An authority (`ca.pem`) and the server's key and certificate for localhost and 127.0.0.1
/// signed by it, made with the `openssl` command (Debian's `postgresql` brings it).
fn make_certificates(root: &Path) -> Result<(), ClusterProblem> {
    std::fs::write(
        root.join("server.ext"),
        "subjectAltName=DNS:localhost,IP:127.0.0.1\n",
    )
    .map_err(|error| ClusterProblem(error.to_string()))?;
    let steps: [&[&str]; 3] = [
        &[
            "req",
            "-x509",
            "-newkey",
            "ec",
            "-pkeyopt",
            "ec_paramgen_curve:prime256v1",
            "-nodes",
            "-keyout",
            "ca.key",
            "-out",
            "ca.pem",
            "-days",
            "2",
            "-subj",
            "/CN=Toolscope test authority",
        ],
        &[
            "req",
            "-newkey",
            "ec",
            "-pkeyopt",
            "ec_paramgen_curve:prime256v1",
            "-nodes",
            "-keyout",
            "server.key",
            "-out",
            "server.csr",
            "-subj",
            "/CN=localhost",
        ],
        &[
            "x509",
            "-req",
            "-in",
            "server.csr",
            "-CA",
            "ca.pem",
            "-CAkey",
            "ca.key",
            "-CAcreateserial",
            "-out",
            "server.pem",
            "-days",
            "2",
            "-extfile",
            "server.ext",
        ],
    ];
    for step in steps {
        let made = Command::new("openssl")
            .args(step)
            .current_dir(root)
            .output()
            .map_err(|error| ClusterProblem(format!("openssl: {error}")))?;
        if !made.status.success() {
            return Err(ClusterProblem(format!(
                "openssl {}: {}",
                step[0],
                String::from_utf8_lossy(&made.stderr)
            )));
        }
    }
    // PostgreSQL refuses a key others can read.
    #[cfg(unix)]
    std::fs::set_permissions(
        root.join("server.key"),
        std::os::unix::fs::PermissionsExt::from_mode(0o600),
    )
    .map_err(|error| ClusterProblem(error.to_string()))?;
    Ok(())
}

fn is_root() -> bool {
    Command::new("id")
        .arg("-u")
        .output()
        .is_ok_and(|output| output.stdout.trim_ascii() == b"0")
}

/// `program`, run as the `postgres` user when `as_postgres`.
fn run_as(as_postgres: bool, program: &Path) -> Command {
    if as_postgres {
        let mut command = Command::new("setpriv");
        command
            .args([
                "--reuid=postgres",
                "--regid=postgres",
                "--init-groups",
                "--",
            ])
            .arg(program);
        command
    } else {
        Command::new(program)
    }
}

fn free_port() -> Result<u16, ClusterProblem> {
    let listener = std::net::TcpListener::bind("127.0.0.1:0")
        .map_err(|error| ClusterProblem(error.to_string()))?;
    listener
        .local_addr()
        .map(|address| address.port())
        .map_err(|error| ClusterProblem(error.to_string()))
}
