//! Files: the plugin's state folder and atomic writes.

use std::io::Write;
use std::path::{Path, PathBuf};

use crate::error::Result;

/// The state folder of this plugin, `/state/<plugin>` (section 3), created
/// when missing. State that must outlive the process belongs here.
pub fn state_dir() -> PathBuf {
    let dir = PathBuf::from("/state").join(crate::process::plugin_name());
    // Looked at once per process, and made only when missing: `create_dir_all`
    // of a folder that exists costs a failed `mkdir` and a `stat`, each
    // resolved by the host a folder at a time.
    static CHECKED: std::sync::Once = std::sync::Once::new();
    CHECKED.call_once(|| {
        if !std::fs::metadata(&dir).is_ok_and(|m| m.is_dir()) {
            let _ = std::fs::create_dir_all(&dir);
        }
    });
    dir
}

/// Replaces the file at `path` with `bytes` in one step: writes a temporary
/// file next to it, then renames it over `path`. A reader sees the old or
/// the new content, never a part. Creates the parent folder when missing.
pub fn write_atomic(path: impl AsRef<Path>, bytes: impl AsRef<[u8]>) -> Result<()> {
    let path = path.as_ref();
    let parent = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    };
    std::fs::create_dir_all(&parent)?;
    let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    let nonce =
        u64::from_le_bytes(wasi::random::random::get_random_bytes(8).try_into().unwrap_or([0; 8]));
    let tmp = parent.join(format!(".{name}.tmp-{nonce:016x}"));
    let written = (|| -> std::io::Result<()> {
        let mut f = std::fs::File::create(&tmp)?;
        f.write_all(bytes.as_ref())?;
        f.sync_all().or(Ok(()))
    })()
    .and_then(|()| std::fs::rename(&tmp, path));
    if let Err(e) = written {
        let _ = std::fs::remove_file(&tmp);
        return Err(e.into());
    }
    Ok(())
}
