#pragma once
// Time series tables inside an output file (/diagnostics/...): float64,
// rows x columns, extendible along the rows, the first column the step.
// Internal to io/src (GridFile::append_row and reopen use them).
#include "h5util.hpp"

#include <string>
#include <vector>

namespace adi::io::detail {

/// Appends `row` to the table `path` (created with the string attribute
/// `columns` = the names joined by ',' and the given extra attributes),
/// after dropping the rows whose step (first column) is >= row[0]: a step is
/// never in a table twice. `writer`: whether this process writes the row's
/// data (every process of a parallel file makes the call; rank 0 writes).
void append_table_row(hid_t file, const std::string& path, const std::vector<std::string>& columns,
                      const std::vector<std::pair<std::string, std::string>>& attributes,
                      const std::vector<double>& row, bool writer, const std::string& context);

/// Drops the rows whose step is > `last_step` from every table in `group`
/// (a restart continues after its checkpoint's step). Nothing if the group
/// does not exist.
void truncate_tables(hid_t file, const std::string& group, long long last_step, const std::string& context);

}  // namespace adi::io::detail
