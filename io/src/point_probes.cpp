// Probes at named points (see point_probes.hpp).

#include "fsutil.hpp"
#include "h5util.hpp"

#include <adi/io/lock.hpp>
#include <adi/io/point_probes.hpp>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>

namespace adi::io {

namespace {

/// The shortest text that reads back to the same double (as in the resolved config).
std::string num(double v) {
  char buf[40];
  for (int digits = 1; digits <= 17; ++digits) {
    std::snprintf(buf, sizeof buf, "%.*g", digits, v);
    if (std::strtod(buf, nullptr) == v) break;
  }
  return buf;
}

/// A point within this many spacings of a node is that node.
constexpr double kSnap = 1e-9;

}  // namespace

int ProbeStencil::corners() const {
  int live = 0;
  for (int a = 0; a < 3; ++a) live += w[a] > 0.0 ? 1 : 0;
  return 1 << live;
}

std::array<index_t, 3> ProbeStencil::corner(int c) const {
  std::array<index_t, 3> k = lo;
  int bit = 0;
  for (int a = 0; a < 3; ++a) {
    if (!(w[a] > 0.0)) continue;
    if (c & (1 << bit)) k[a] = hi[a];
    ++bit;
  }
  return k;
}

double ProbeStencil::weight(int c) const {
  double f = 1.0;
  int bit = 0;
  for (int a = 0; a < 3; ++a) {
    if (!(w[a] > 0.0)) continue;
    f *= (c & (1 << bit)) ? w[a] : 1.0 - w[a];
    ++bit;
  }
  return f;
}

double interpolate(const ProbeStencil& s, const double* v) {
  const int m = s.corners();
  if (m == 1) return v[0];  // at a node: its value, bit for bit
  double sum = 0.0;
  for (int c = 0; c < m; ++c) sum += s.weight(c) * v[c];
  return sum;
}

std::vector<ProbeStencil> locate_probes(const RunConfig& c) {
  std::vector<ProbeStencil> out;
  for (const ProbePoint& pt : c.probes.points) out.push_back(locate_probe(c, pt, "probes.points." + pt.name));
  return out;
}

ProbeStencil locate_probe(const RunConfig& c, const ProbePoint& pt, const std::string& key) {
  const HeatProblem& p = c.problem;
  {
    ProbeStencil s;
    s.name = pt.name;
    s.x = pt.x;
    for (int a = 0; a < 3; ++a) {
      const double o = c.origin[a], L = p.length[a], h = p.spacing(a), x = pt.x[a];
      const double tol = kSnap * h;
      if (!(x >= o - tol && x <= o + L + tol)) {
        const char* ax = "xyz";
        std::string box;
        for (int b = 0; b < 3; ++b)
          box += (b ? " x [" : "[") + num(c.origin[b]) + ", " + num(c.origin[b] + p.length[b]) + "]";
        throw ConfigError(pt.where, key,
                          "the point (" + num(pt.x[0]) + ", " + num(pt.x[1]) + ", " + num(pt.x[2]) +
                              ") m is outside the box " + box + " m (" + std::string(1, ax[a]) + " = " + num(x) +
                              (x < o ? " is below the origin " + num(o) : " is past " + num(o + L)) + ")",
                          __FILE__, __LINE__);
      }
      if (p.flat(a)) continue;  // one node: lo = hi = 0, w = 0
      const index_t n = p.n[a];
      double t = (x - o) / h;
      if (p.stretched(a)) {
        // Its own nodes: the gap [x_k, x_k+1] that holds x (past the last
        // node of a periodic axis: the wrap's gap to node 0's image).
        const std::vector<double>& xs = p.coordinates[a];
        const double xr = x - o + xs.front();
        const auto it = std::upper_bound(xs.begin(), xs.end(), xr);
        const index_t k0 = std::min<index_t>(std::max<index_t>(static_cast<index_t>(it - xs.begin()) - 1, 0),
                                             static_cast<index_t>(xs.size()) - 2);
        const double gk = xs[static_cast<std::size_t>(k0) + 1] - xs[static_cast<std::size_t>(k0)];
        t = static_cast<double>(k0) + (xr - xs[static_cast<std::size_t>(k0)]) / gk;
      }
      double i = std::floor(t);
      double f = t - i;
      if (f < kSnap) f = 0.0;
      if (f > 1.0 - kSnap) i += 1.0, f = 0.0;
      index_t k = static_cast<index_t>(i);
      if (p.periodic(a)) {
        k = ((k % n) + n) % n;  // x0 + L is node 0 again
        s.lo[a] = k;
        s.hi[a] = f > 0.0 ? (k + 1) % n : k;
      } else {
        if (k < 0) k = 0, f = 0.0;  // within the snap distance below the face
        if (k >= n - 1) k = n - 1, f = 0.0;
        s.lo[a] = k;
        s.hi[a] = f > 0.0 ? k + 1 : k;
      }
      s.w[a] = f;
    }
    return s;
  }
}

std::vector<ProbeSeries> probe_series(const RunConfig& c) {
  std::vector<ProbeSeries> v;
  for (const ProbePoint& p : c.probes.points) v.push_back({p.name, p.x});
  return v;
}

std::string probes_csv_path(const RunConfig& c) {
  const ProbesConfig& pc = c.probes;
  if (!pc.any() || !pc.csv) return "";
  if (!pc.csv_file.empty()) return pc.csv_file;
  std::string s = c.output.file;
  for (const char* ext : {".h5", ".hdf5", ".hdf", ".he5"}) {
    const std::string e(ext);
    if (s.size() > e.size() && s.compare(s.size() - e.size(), e.size(), e) == 0) {
      s.resize(s.size() - e.size());
      break;
    }
  }
  return s + ".probes.csv";
}

namespace {

std::string header_of(const std::vector<std::string>& names) {
  std::string h = "step,time";
  for (const auto& n : names) h += "," + n;
  return h;
}

std::size_t fields_of(const std::string& line) {
  std::size_t k = 1;
  for (char ch : line) k += ch == ',' ? 1 : 0;
  return k;
}

void write_text_atomically(const std::string& path, const std::string& text, const std::string& what) {
  const std::string tmp = unique_temp_path(path);
  {
    std::ofstream f(tmp, std::ios::binary | std::ios::trunc);
    if (!f) {
      const int err = errno;
      throw IoError(what + ": cannot create " + tmp + " (" + detail::errno_text(err) + ")", __FILE__, __LINE__);
    }
    f << text;
    f.flush();
    if (!f) {
      const int err = errno;
      detail::remove_quietly(tmp);
      throw IoError(what + ": cannot write " + tmp + " (" + detail::errno_text(err) + ")", __FILE__, __LINE__);
    }
  }
  try {
    detail::rename_file(tmp, path, what);
  } catch (...) {
    detail::remove_quietly(tmp);
    throw;
  }
}

}  // namespace

ProbeCsv::ProbeCsv(std::string path, const std::vector<std::string>& names, index_t restart_step)
    : path_(std::move(path)), columns_(names.size()) {
  const std::string what = "probes CSV '" + path_ + "'";
  const std::string header = header_of(names);
  std::string text = header + "\n";
  if (restart_step >= 0) {
    std::ifstream in(path_, std::ios::binary);
    if (in) {
      std::stringstream ss;
      ss << in.rdbuf();
      const std::string old = ss.str();
      std::size_t at = old.find('\n');
      if (at == std::string::npos || old.substr(0, at) != header)
        throw IoError(what + ": its header is not '" + header +
                          "' (the probes of this run): move it away, or name another probes.csv",
                      __FILE__, __LINE__);
      ++at;
      // Complete lines of steps up to the restart's: the rest is written again.
      while (at < old.size()) {
        const std::size_t e = old.find('\n', at);
        if (e == std::string::npos) break;  // half a line: a killed run's last write
        const std::string line = old.substr(at, e - at);
        at = e + 1;
        if (fields_of(line) != columns_ + 2) break;
        char* end = nullptr;
        const long long step = std::strtoll(line.c_str(), &end, 10);
        if (end == line.c_str() || *end != ',') break;
        if (step > restart_step) break;
        text += line + "\n";
      }
    }
  }
  write_text_atomically(path_, text, what);
}

void ProbeCsv::append(const ProbeRows& rows) {
  if (rows.empty()) return;
  std::string text;
  char buf[64];
  for (std::size_t r = 0; r < rows.size(); ++r) {
    std::snprintf(buf, sizeof buf, "%lld,%.17g", static_cast<long long>(rows.steps[r]), rows.times[r]);
    text += buf;
    for (std::size_t p = 0; p < columns_; ++p) {
      std::snprintf(buf, sizeof buf, ",%.17g", rows.values[r * rows.probes + p]);
      text += buf;
    }
    text += "\n";
  }
  std::FILE* f = std::fopen(path_.c_str(), "ab");
  if (!f) {
    const int err = errno;
    throw IoError("probes CSV '" + path_ + "': cannot open for appending (" + detail::errno_text(err) + ")",
                  __FILE__, __LINE__);
  }
  const std::size_t wrote = std::fwrite(text.data(), 1, text.size(), f);
  const int err = errno;
  const bool closed = std::fclose(f) == 0;
  if (wrote != text.size() || !closed)
    throw IoError("probes CSV '" + path_ + "': cannot write (" + detail::errno_text(err) + ")", __FILE__, __LINE__);
}

}  // namespace adi::io
