#pragma once
// The identity of a problem: everything that defines what a run solves, once
// its config is resolved, as a list of named items, and their hash.
//
// A checkpoint and an output file record both (attributes `problem` and
// `problem_hash`). A restart recomputes them from its config and refuses a
// difference (exit 2), naming the first item that differs in words:
//
//     source.table differs: checkpoint [[0, 1], [40, 10]], config [[0, 1], [40, 20]]
//
// and a run refuses to continue an output file written for another problem.
// The items: the grid and the box (grid, domain), every material and source
// value (a field by the checksum of its contents), every face's type, value,
// coefficient and table, the scheme (type, theta) and time.start, and the values of the initial
// field where the problem reads them again (Dirichlet faces that keep the
// initial values and move with a table). Not dt (a restart may change it: a
// new segment of the time axis, config.hpp TimeAxis), not the number of
// steps, the outputs or the checkpoints (docs/USER_GUIDE.md, "Restarts").
//
// Adding a problem field (a scheme type, say): one line in problem_items(),
// with `legacy` set to the value every run before it solved, so that older
// checkpoints and outputs, whose lists lack the item, compare as that value.

#include <adi/io/config.hpp>

#include <functional>
#include <string>
#include <vector>

namespace adi::io {

struct ProblemItem {
  std::string key;    ///< "source.table", "boundary.x_lo.h", ...: the config key it comes from
  std::string value;  ///< its value as text: numbers in their shortest exact form, fields by checksum
  std::string label;  ///< in messages, if not the key (a `diffusivity:` config's conductivity)
  std::string note;   ///< shown after the config's value in messages (a field's file), not compared
  std::string legacy; ///< the value of runs whose lists lack the item ("" = not compared then)
};

/// A field's checksum ("fnv1a64:...") by its name in outputs and provenance
/// ("conductivity", "conductivity_x", "heat_capacity", "source", "initial"),
/// "" when it is not known.
using ChecksumLookup = std::function<std::string(const std::string& name)>;

/// The items of config `c`, its fields attached (attach_fields; the
/// checksums read the whole fields unless they are cached, e.g. by the probe
/// that read them first). `lookup`, if set, gives the checksums instead (a
/// stored config, whose fields are not attached).
std::vector<ProblemItem> problem_items(const RunConfig& c, const ChecksumLookup& lookup = {});

/// "key = value" per line (the attribute `problem`), and back.
std::string problem_items_text(const std::vector<ProblemItem>& items);
std::vector<ProblemItem> parse_problem_items(const std::string& text);
/// "fnv1a64:<16 hex digits>" over the keys and values.
std::string problem_hash(const std::vector<ProblemItem>& items);

/// "" when `now` describes the same problem as `stored`; else the first
/// item (in `now`'s order) that differs: "<key> differs: <stored_name>
/// <value>, <now_name> <value> (<note>)". An item `stored` lacks compares as
/// its legacy value, or not at all; an item only `stored` has differs.
std::string first_difference(const std::vector<ProblemItem>& stored, const std::string& stored_name,
                             const std::vector<ProblemItem>& now, const std::string& now_name);

/// The items of a file written before they were recorded (a version 1
/// checkpoint, an older output), from its stored resolved config and its
/// provenance attribute input_fields ("conductivity = k.h5:/K fnv1a64:...").
/// Fields without a recorded checksum are left out; a config this adi3d no
/// longer accepts gives an empty list (nothing can be compared).
std::vector<ProblemItem> problem_items_of_stored(const std::string& config_yaml, const std::string& input_fields,
                                                 const std::string& name);

}  // namespace adi::io
