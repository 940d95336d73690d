#pragma once
// Internal to the io module: the file-system primitives behind its atomic
// writes (temporary file + fsync + rename) and its refusals (an input that is
// not a file, a write that cannot fit the disk). POSIX only, no HDF5.

#include <cstddef>
#include <string>

namespace adi::io::detail {

/// Whether anything (a file, a link, a folder) has this name on disk (lstat).
bool file_exists(const std::string& path);
/// Creates (truncating) `path` with open(2) to learn why it cannot be
/// created (errno text) before HDF5 tries; throws IoError "<what>: cannot create <path> (<errno text>)".
void probe_creatable(const std::string& path, const std::string& what);
/// fsync(2) of a file and of the folder holding it (so a rename is durable).
void fsync_path(const std::string& path);
void fsync_parent_dir(const std::string& path);
/// rename(2) + fsync of the folder; throws IoError.
void rename_file(const std::string& from, const std::string& to, const std::string& what);
void remove_quietly(const std::string& path);
/// write(2) until all n bytes are written (EINTR retried); false with errno
/// set (EIO for a write of 0 bytes) otherwise.
bool write_all(int fd, const void* p, std::size_t n);
std::string parent_dir(const std::string& path);
std::string base_name(const std::string& path);
std::string errno_text(int err);
/// Bytes an unprivileged process may still write on the file system of
/// `path`'s folder (statvfs f_bavail; -1 when unknown).
double free_bytes(const std::string& path);
/// "; No space left on device: the file system of 'dir' has 12 KiB free
/// (this write needs about 2.0 MiB)" when it has less than `need` bytes free
/// (and the message does not say so already), else "".
std::string space_note(const std::string& path, double need, const std::string& message = "");
/// IoError "<what>: No space left on device: ..." before a write of about
/// `need` bytes that cannot fit: refused before HDF5 is called (a collective
/// write that fails inside HDF5 on one rank leaves the ranks in different
/// calls of the library).
void require_space(const std::string& path, double need, const std::string& what);
/// An input that is not a regular file (a FIFO, a device, a folder: reading
/// one blocks, or reads endless or no bytes): IoError "<path>: cannot read
/// <what>: it is a FIFO (named pipe), not a file", before any byte is read.
void require_regular_input(const std::string& path, const std::string& what);

}  // namespace adi::io::detail
