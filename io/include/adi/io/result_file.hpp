#pragma once
// Small result files a command writes on request (`adi3d bench --json FILE`,
// `adi3d validate --json FILE`): the same rules as the run's output file.
//
//   * An existing regular file is a result of an earlier run (or a user's
//     file): it is refused, and the command says so before it does its work,
//     unless `overwrite` (the command's --overwrite) is set. Even then only a
//     JSON document (first non-blank byte '{') is replaced: `--json run.h5
//     --overwrite` or `--json case.yaml --overwrite` is a typo, not a request.
//   * A new file is written to a unique temporary next to it, fsync'ed, and
//     linked to its name only if that name is still free (a run started at
//     the same time keeps its file); a replaced one is renamed over. A failed
//     or killed write leaves no partial file under the final name.
//   * A character device or a pipe (/dev/stdout, /dev/null, /dev/full, a
//     FIFO) is a stream, not a file: written in place. "-" is stdout.
//
// Every refusal or failure is an IoError (exit 3) naming the path.
#include <string>

namespace adi::io {

/// Throws IoError if write_result_file(path, ..., overwrite) would refuse
/// `path` as it is now (`what` names the content: "benchmark JSON").
void check_result_file(const std::string& path, const std::string& what, bool overwrite);

/// Writes `text` to `path` by the rules above; checks that every byte
/// arrived (a full disk is an IoError, not a silent success).
void write_result_file(const std::string& path, const std::string& text, const std::string& what, bool overwrite);

}  // namespace adi::io
