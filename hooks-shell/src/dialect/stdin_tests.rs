//! Tests of the stdin documents.
/// A FIFO in place of the file the agent reads (red-team F15): read as
/// nothing, at once, instead of waiting for a writer forever.
#[test]
fn a_fifo_is_read_as_nothing_without_waiting() {
    let dir = tempfile::tempdir().expect("dir");
    let fifo = dir.path().join("NOTES.md");
    let status = std::process::Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .expect("mkfifo");
    assert!(status.success());
    assert_eq!(super::file_content(fifo.to_str().expect("UTF-8")), "");
    let file = dir.path().join("plain.md");
    std::fs::write(&file, "text").expect("write");
    assert_eq!(super::file_content(file.to_str().expect("UTF-8")), "text");
}
