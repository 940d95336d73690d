// load_box_field and load_box_material (detail/general_local.hpp): one
// rank's box of the material fields, for the CPU and CUDA local backends of
// the distributed general path.

#include <adi/box/general_local.hpp>

#include <algorithm>
#include <cmath>
#include <exception>
#include <vector>

namespace adi::box {

template <class T>
std::vector<T> load_box_field(const HeatProblem& p, const LocalPart& part, const std::array<bool, 3>& ghosts,
                              const LocalStorage& st, const FieldSource& f, const char* what, bool signed_ok,
                              bool collective) {
  // Per axis the global index of every local one (ghosts included) and the
  // ascending set of those global indices (a periodic axis may map two
  // locals to one global node), read in one call.
  std::array<std::vector<index_t>, 3> idx, pos;
  std::array<index_t, 3> g{};
  for (int a = 0; a < 3; ++a) {
    g[a] = ghosts[a] ? 1 : 0;
    const index_t n = p.n[a], m = part.box.size[a];
    std::vector<index_t> glob;
    for (index_t l = -g[a]; l < m + g[a]; ++l) {
      index_t x = part.box.begin[a] + l;
      if (x < 0 || x >= n) x = p.periodic(a) ? (x + n) % n : std::clamp<index_t>(x, 0, n - 1);
      glob.push_back(x);
    }
    idx[a] = glob;
    std::sort(idx[a].begin(), idx[a].end());
    idx[a].erase(std::unique(idx[a].begin(), idx[a].end()), idx[a].end());
    for (const index_t x : glob)
      pos[a].push_back(static_cast<index_t>(std::lower_bound(idx[a].begin(), idx[a].end(), x) - idx[a].begin()));
  }
  const index_t n0 = static_cast<index_t>(idx[0].size()), n1 = static_cast<index_t>(idx[1].size());
  std::vector<double> buf(static_cast<std::size_t>(n0 * n1 * static_cast<index_t>(idx[2].size())));
  f.read_indices(idx, buf.data(), collective);
  std::vector<T> out(static_cast<std::size_t>(st.elements), T(0));
  T* base = out.data() + st.origin;
  const Layout3& L = st.layout;
  for (std::size_t k = 0; k < pos[2].size(); ++k)
    for (std::size_t j = 0; j < pos[1].size(); ++j)
      for (std::size_t i = 0; i < pos[0].size(); ++i) {
        const double x = buf[static_cast<std::size_t>(pos[0][i] + n0 * (pos[1][j] + n1 * pos[2][k]))];
        if (!(std::isfinite(x) && (signed_ok || x > 0.0)))
          throw_bad_field_value(what, f.name(), x, {{idx[0][pos[0][i]], idx[1][pos[1][j]], idx[2][pos[2][k]]}},
                                signed_ok);
        base[L.offset(static_cast<index_t>(i) - g[0], static_cast<index_t>(j) - g[1], static_cast<index_t>(k) - g[2])] =
            static_cast<T>(x);
      }
  return out;
}

template <class T>
BoxMaterial<T> load_box_material(const HeatProblem& p, const LocalPart& part, const std::array<bool, 3>& ghosts,
                                 const LocalStorage& st, bool collective) {
  BoxMaterial<T> m;
  for (int a = 0; a < 3; ++a) m.k_shared[a] = shared_conductivity(p, a);
  std::exception_ptr bad;
  const auto attempt = [&bad](auto&& read) {
    try {
      read();
    } catch (...) {
      if (!bad) bad = std::current_exception();
    }
  };
  const auto load = [&](const FieldSource& f, const char* what, bool signed_ok) {
    return load_box_field<T>(p, part, ghosts, st, f, what, signed_ok, collective);
  };
  for (int a = 0; a < 3; ++a) {
    const auto& src = p.material.conductivity[a];
    if (!src || p.flat(a) || m.k_shared[a] >= 0) continue;
    attempt([&] { m.k[a] = load(*src, "conductivity", false); });
  }
  if (p.material.capacity) attempt([&] {
      m.rho = load(*p.material.capacity, "heat capacity", false);
      for (T& r : m.rho) r = T(1) / r;
    });
  if (p.material.source) attempt([&] { m.q = load(*p.material.source, "heat source", true); });
  if (bad) std::rethrow_exception(bad);
  return m;
}

template BoxMaterial<float> load_box_material<float>(const HeatProblem&, const LocalPart&, const std::array<bool, 3>&,
                                                     const LocalStorage&, bool);
template BoxMaterial<double> load_box_material<double>(const HeatProblem&, const LocalPart&,
                                                       const std::array<bool, 3>&, const LocalStorage&, bool);
template std::vector<float> load_box_field<float>(const HeatProblem&, const LocalPart&, const std::array<bool, 3>&,
                                                  const LocalStorage&, const FieldSource&, const char*, bool, bool);
template std::vector<double> load_box_field<double>(const HeatProblem&, const LocalPart&, const std::array<bool, 3>&,
                                                    const LocalStorage&, const FieldSource&, const char*, bool, bool);

}  // namespace adi::box
