//! Files only the bot's user may read: the data directory (0700), the database and the saved
//! Matrix session (0600). Secrets at rest must not be world-readable, whatever the umask.

use std::io::Write;
use std::path::Path;

use anyhow::{Context, Result};

/// Creates `dir` (and its parents) if needed, and makes it readable by its owner only.
pub fn private_dir(dir: &Path) -> Result<()> {
    std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
    restrict(dir, 0o700)
}

/// Writes `bytes` to a file readable by its owner only (created so from the start: no moment
/// where another user could open it).
pub fn write_private(path: &Path, bytes: &[u8]) -> Result<()> {
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create(true).truncate(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.mode(0o600);
    }
    let mut file = options.open(path).with_context(|| format!("writing {}", path.display()))?;
    file.write_all(bytes).with_context(|| format!("writing {}", path.display()))?;
    // An older file keeps its mode through `open`: tighten it too.
    restrict(path, 0o600)
}

/// Sets `path`'s permission bits (on Unix; elsewhere the platform's defaults stand).
pub fn restrict(path: &Path, mode: u32) -> Result<()> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode))
            .with_context(|| format!("restricting {}", path.display()))?;
    }
    #[cfg(not(unix))]
    let _ = (path, mode);
    Ok(())
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt;

    #[test]
    fn directories_and_files_are_the_owners_alone() {
        let dir = std::env::temp_dir().join(format!("tessera-private-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        private_dir(&dir.join("matrix")).unwrap();
        let mode = |p: &Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode(&dir.join("matrix")), 0o700);
        let file = dir.join("matrix/session.json");
        std::fs::write(&file, "old").unwrap();
        std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o644)).unwrap();
        write_private(&file, b"{\"token\": \"secret\"}").unwrap();
        assert_eq!(mode(&file), 0o600);
        assert_eq!(std::fs::read_to_string(&file).unwrap(), "{\"token\": \"secret\"}");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
