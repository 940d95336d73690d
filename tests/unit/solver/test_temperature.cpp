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
}

}  // namespace
