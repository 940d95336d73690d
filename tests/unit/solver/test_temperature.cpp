// Property tables of temperature and the state that serves K(u), c(u) as
// material fields (adi/temperature.hpp).
#include <adi/temperature.hpp>

#include <gtest/gtest.h>

#include <cmath>
#include <memory>
#include <string>
#include <vector>

namespace {

using adi::PropertyTable;

TEST(PropertyTable, InterpolatesInsideAndRefusesOutside) {
  const PropertyTable t{{300, 350, 400}, {148, 119, 98}};
  double v = -1;
  EXPECT_TRUE(t.at(300, v));
  EXPECT_EQ(v, 148);
  EXPECT_TRUE(t.at(325, v));
  EXPECT_DOUBLE_EQ(v, 133.5);
  EXPECT_TRUE(t.at(400, v));
  EXPECT_EQ(v, 98);
  v = -1;
  EXPECT_FALSE(t.at(299.999, v));
  EXPECT_FALSE(t.at(400.001, v));
  EXPECT_FALSE(t.at(std::nan(""), v));
  EXPECT_EQ(v, -1);  // untouched
  const PropertyTable c = PropertyTable::constant_value(7);
  EXPECT_TRUE(c.at(-1e300, v));
  EXPECT_EQ(v, 7);
}

// The mean over [a, b] is the enthalpy chord: exact for a piecewise-linear
// table across its kinks, in either order, and the value itself at a == b.
TEST(PropertyTable, MeanIsTheChordOfTheIntegral) {
  const PropertyTable t{{0, 1, 3}, {1, 3, 1}};
  // int_0^3 = 2 (segment 1: (1+3)/2) + 4 (segment 2: 2 (3+1)/2) = 6.
  double m = 0;
  ASSERT_TRUE(t.mean(0, 3, m));
  EXPECT_DOUBLE_EQ(m, 2.0);
  ASSERT_TRUE(t.mean(3, 0, m));
  EXPECT_DOUBLE_EQ(m, 2.0);
  // [0.5, 2]: v(0.5) = 2, v(1) = 3, v(2) = 2: 0.5 * 2.5 + 1 * 2.5 = 3.75 over 1.5.
  ASSERT_TRUE(t.mean(0.5, 2, m));
  EXPECT_DOUBLE_EQ(m, 3.75 / 1.5);
  ASSERT_TRUE(t.mean(2, 2, m));
  EXPECT_DOUBLE_EQ(m, 2.0);
  // Inside one segment the chord is the value at the midpoint.
  ASSERT_TRUE(t.mean(1.2, 2.6, m));
  double mid = 0;
  ASSERT_TRUE(t.at(1.9, mid));
  EXPECT_DOUBLE_EQ(m, mid);
  EXPECT_FALSE(t.mean(-0.1, 2, m));
  EXPECT_FALSE(t.mean(1, 3.5, m));
}

// The enthalpy's inverse: from any start, up or down, across kinks, the
// temperature whose integral from the start is e (checked against the
// chord: (x - u0) mean(u0, x) = e); false where it would leave the table.
TEST(PropertyTable, EnthalpyInverseUndoesTheIntegral) {
  const PropertyTable t{{0, 1, 3, 4}, {1, 3, 1, 1}};  // a rising, a falling and a flat piece
  const double* tt = t.t.data();
  const double* tv = t.v.data();
  double x = 0;
  // int_0^3 = 6 (above), int_3^4 = 1.
  ASSERT_TRUE(adi::detail::table_enthalpy_inverse(tt, tv, 4, 0.0, 6.0, x));
  EXPECT_NEAR(x, 3.0, 1e-15);
  ASSERT_TRUE(adi::detail::table_enthalpy_inverse(tt, tv, 4, 0.0, 7.0, x));
  EXPECT_NEAR(x, 4.0, 1e-15);
  ASSERT_TRUE(adi::detail::table_enthalpy_inverse(tt, tv, 4, 4.0, -7.0, x));
  EXPECT_NEAR(x, 0.0, 1e-15);
  for (const double u0 : {0.0, 0.3, 1.0, 2.2, 3.0, 3.7})
    for (const double e : {-3.1, -0.4, -1e-9, 0.0, 1e-9, 0.25, 1.9, 3.3}) {
      SCOPED_TRACE("u0 " + std::to_string(u0) + ", e " + std::to_string(e));
      double m = 0;
      if (!adi::detail::table_enthalpy_inverse(tt, tv, 4, u0, e, x)) {
        // Only where the table's enthalpy ends first: int_u0^4 < e, or int_0^u0 < -e.
        ASSERT_TRUE(t.mean(u0, e > 0 ? 4.0 : 0.0, m));
        EXPECT_LT(std::abs((e > 0 ? 4.0 : 0.0) - u0) * m, std::abs(e));
        continue;
      }
      ASSERT_TRUE(t.mean(u0, x, m));
      EXPECT_NEAR((x - u0) * m, e, 1e-14);
      EXPECT_TRUE(e == 0 ? x == u0 : (x - u0) * e > 0);
    }
  EXPECT_FALSE(adi::detail::table_enthalpy_inverse(tt, tv, 4, 4.5, 0.1, x));
  EXPECT_FALSE(adi::detail::table_enthalpy_inverse(tt, tv, 4, 1.0, std::nan(""), x));
  EXPECT_FALSE(adi::detail::table_enthalpy_inverse(tt, tv, 4, 1.0, HUGE_VAL, x));
}

TEST(PropertyTable, ValidateNamesWhatIsWrong) {
  auto why = [](const PropertyTable& t) {
    try {
      t.validate("steel conductivity");
    } catch (const adi::InvalidArgument& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  EXPECT_EQ(why(PropertyTable{{300, 400}, {1, 2}}), "");
  EXPECT_NE(why(PropertyTable{{300}, {1}}).find("at least two"), std::string::npos);
  EXPECT_NE(why(PropertyTable{{300, 300}, {1, 2}}).find("increase strictly"), std::string::npos);
  EXPECT_NE(why(PropertyTable{{300, 400}, {1, 0}}).find("value > 0"), std::string::npos);
  EXPECT_NE(why(PropertyTable{{300, std::nan("")}, {1, 2}}).find("finite temperature"), std::string::npos);
  EXPECT_NE(why(PropertyTable::constant_value(-1)).find("one finite value > 0"), std::string::npos);
}

// The state's fields: before an evaluation each table's first value; after
// it K and c of every node at its temperature; an evaluation that meets a
// temperature outside a table throws naming it and leaves the fields as
// they were.
TEST(TemperatureState, FieldsFollowTheTemperatures) {
  const std::array<adi::index_t, 3> n{{3, 2, 1}};
  adi::TemperatureMaterial a, b;
  a.name = "a";
  a.conductivity.fill(PropertyTable{{0, 10}, {1, 2}});
  a.capacity = PropertyTable::constant_value(5);
  b.name = "b";
  b.conductivity = {PropertyTable::constant_value(3), PropertyTable::constant_value(4), PropertyTable{{0, 10}, {6, 8}}};
  b.capacity = PropertyTable{{0, 10}, {1, 3}};
  auto idx = std::make_shared<adi::ArrayField>("r", n, std::vector<double>{0, 1, 0, 1, 1, 0});
  adi::TemperatureState s(n, idx, {a, b}, false);
  std::vector<double> kz(6), c(6);
  s.conductivity(2)->read({{0, 0, 0}}, n, kz.data());
  EXPECT_EQ(kz, (std::vector<double>{1, 6, 1, 6, 6, 1}));
  const std::vector<double> u{5, 5, 10, 0, 2.5, 0};
  s.evaluate(u.data());
  s.conductivity(2)->read({{0, 0, 0}}, n, kz.data());
  s.capacity()->read({{0, 0, 0}}, n, c.data());
  EXPECT_EQ(kz, (std::vector<double>{1.5, 7, 2, 6, 6.5, 1}));
  EXPECT_EQ(c, (std::vector<double>{5, 2, 5, 1, 1.5, 5}));
  const std::vector<double> bad{5, 5, 10, 0, 12, 0};
  try {
    s.evaluate(bad.data());
    ADD_FAILURE() << "no error";
  } catch (const adi::NumericalError& e) {
    EXPECT_NE(std::string(e.what()).find("temperature 12 at node (i, j, k) = (1, 1, 0) is outside the conductivity z "
                                         "table of material 'b', [0, 10]"),
              std::string::npos)
        << e.what();
  }
  s.conductivity(2)->read({{0, 0, 0}}, n, kz.data());
  EXPECT_EQ(kz, (std::vector<double>{1.5, 7, 2, 6, 6.5, 1}));
  // A step from u0 to u1: K at the midpoint, c the chord.
  const std::vector<double> u1{5, 5, 10, 10, 2.5, 0};
  s.evaluate_step(u.data(), u1.data());
  s.conductivity(2)->read({{0, 0, 0}}, n, kz.data());
  s.capacity()->read({{0, 0, 0}}, n, c.data());
  EXPECT_EQ(kz[3], 7);  // b at (0 + 10) / 2
  EXPECT_EQ(c[3], 2);   // the mean of 1 .. 3
  // The non-iterated steps' correction: a linear step from u to v with c
  // the chord of [u, u1]: v becomes the temperature of enthalpy H(u) +
  // c (v - u); a constant c (material a) and a Dirichlet face keep v.
  std::vector<double> v{6, 6, 9, 8, 3, 1};
  s.conserve_enthalpy(u.data(), u1.data(), v.data(), v.size(), {});
  EXPECT_EQ(v[0], 6);
  EXPECT_EQ(v[2], 9);
  EXPECT_EQ(v[5], 1);
  // Node 3 (b, c = 1 + 0.2 u): H(x) - H(0) = 2 (8 - 0) = 16 -> x + 0.1 x^2 = 16.
  EXPECT_NEAR(v[3], (-1 + std::sqrt(1 + 6.4)) / 0.2, 1e-13);
  EXPECT_NEAR(v[3] + 0.1 * v[3] * v[3], 16.0, 1e-13);
  EXPECT_NE(v[3], 8);
  // Node 1 (b from 5, u1 = 5: c(5) = 2): H(x) - H(5) = 2 (6 - 5).
  EXPECT_NEAR((v[1] + 0.1 * v[1] * v[1]) - (5 + 2.5), 2.0, 1e-13);
  std::vector<double> w{6, 6, 9, 8, 3, 1};
  std::array<bool, 6> fixed{};
  fixed[1] = true;  // hi x: nodes i == 2 (indices 2 and 5, both material a) and lo y: j == 0
  fixed[2] = true;
  s.conserve_enthalpy(u.data(), u1.data(), w.data(), w.size(), fixed);
  EXPECT_EQ(w[1], 6);  // (1, 0, 0): on lo y
  EXPECT_EQ(w[3], v[3]);
  // An enthalpy beyond the table: the node and the material named.
  std::vector<double> hot{6, 6, 9, 40, 3, 1};
  try {
    s.conserve_enthalpy(u.data(), u1.data(), hot.data(), hot.size(), {});
    ADD_FAILURE() << "no error";
  } catch (const adi::NumericalError& e) {
    EXPECT_NE(std::string(e.what()).find("temperature 40 at node (i, j, k) = (0, 1, 0) leaves the heat capacity "
                                         "table of material 'b', [0, 10]"),
              std::string::npos)
        << e.what();
  }
}

}  // namespace
