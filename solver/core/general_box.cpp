// load_box_field (detail/general_local.hpp): one rank's box of a material
// field, for the CPU and CUDA local backends of the distributed general path.

#include <adi/detail/general_local.hpp>

#include <cmath>
#include <sstream>
#include <vector>

namespace adi::mpi::detail {

namespace {

/// A run of consecutive local indices whose global indices are consecutive too.
struct Run {
  index_t local = 0, global = 0, len = 0;
};

}  // namespace

template <class T>
std::vector<T> load_box_field(const HeatProblem& p, const LocalPart& part, const std::array<bool, 3>& ghosts,
                              const LocalStorage& st, const FieldSource& f, const char* what, bool signed_ok) {
  std::array<std::vector<Run>, 3> runs;
  for (int a = 0; a < 3; ++a) {
    const index_t g = ghosts[a] ? 1 : 0, n = p.n[a], m = part.box.size[a];
    auto glob = [&](index_t l) {
      index_t x = part.box.begin[a] + l;
      if (x < 0 || x >= n) x = p.periodic(a) ? (x + n) % n : std::clamp<index_t>(x, 0, n - 1);
      return x;
    };
    for (index_t l = -g; l < m + g;) {
      Run r{l, glob(l), 1};
      while (l + r.len < m + g && glob(l + r.len) == r.global + r.len) ++r.len;
      runs[a].push_back(r);
      l += r.len;
    }
  }
  std::vector<T> out(static_cast<std::size_t>(st.elements), T(0));
  T* base = out.data() + st.origin;
  const Layout3& L = st.layout;
  std::vector<double> buf;
  for (const Run& rz : runs[2])
    for (const Run& ry : runs[1])
      for (const Run& rx : runs[0]) {
        buf.resize(static_cast<std::size_t>(rx.len * ry.len * rz.len));
        f.read({{rx.global, ry.global, rz.global}}, {{rx.len, ry.len, rz.len}}, buf.data());
        for (index_t k = 0; k < rz.len; ++k)
          for (index_t j = 0; j < ry.len; ++j)
            for (index_t i = 0; i < rx.len; ++i) {
              const double x = buf[static_cast<std::size_t>(i + rx.len * (j + ry.len * k))];
              if (!(std::isfinite(x) && (signed_ok || x > 0.0))) {
                const index_t gi = rx.global + i, gj = ry.global + j, gk = rz.global + k;
                std::ostringstream s;
                s << what << " field " << f.name() << ": value " << x << " at node (i, j, k) = (" << gi << ", "
                  << gj << ", " << gk << ") (dataset index [" << gk << ", " << gj << ", " << gi
                  << "]): expected a finite value" << (signed_ok ? "" : " > 0");
                ADI_THROW(InvalidArgument, s.str());
              }
              base[L.offset(rx.local + i, ry.local + j, rz.local + k)] = static_cast<T>(x);
            }
      }
  return out;
}

template std::vector<float> load_box_field<float>(const HeatProblem&, const LocalPart&, const std::array<bool, 3>&,
                                                  const LocalStorage&, const FieldSource&, const char*, bool);
template std::vector<double> load_box_field<double>(const HeatProblem&, const LocalPart&, const std::array<bool, 3>&,
                                                    const LocalStorage&, const FieldSource&, const char*, bool);

}  // namespace adi::mpi::detail
