// Materials by region (material.regions + material.materials): the config's
// form and its errors, and RegionField on real HDF5 files (ids of several
// integer types, unknown ids, boxes as one MPI rank reads them).

#include "hdf5_test_support.hpp"

#include <adi/io/config.hpp>
#include <adi/io/identity.hpp>

namespace {

using namespace adi::test::hdf5;

const char* kHead = "grid: {nx: 7, ny: 5, nz: 4}\ntime: {dt: 0.1, steps: 1}\ninitial: {value: 1}\n";

std::string regions(const std::string& materials, const std::string& extra = "") {
  return std::string(kHead) + "material:\n  regions: {file: r.h5, dataset: /region}\n  materials: " + materials +
         "\n" + extra;
}

void expect_config_error(const std::string& text, const std::string& re) {
  expect_throw_matching<ConfigError>([&] { (void)parse_config(text, "case.yaml"); }, re);
}

// The region of node (i, j, k): 1 left of i = 3, 2 right of it, 7 in a block.
int region_of(index_t i, index_t j, index_t k) {
  if (k >= 2 && j >= 1 && j <= 3 && i >= 2 && i <= 5) return 7;
  return i < 3 ? 1 : 2;
}

template <class I>
void write_regions(const std::string& file, hid_t ftype, hid_t mtype, int changed = 0) {
  std::vector<I> v(7 * 5 * 4);
  for (index_t k = 0; k < 4; ++k)
    for (index_t j = 0; j < 5; ++j)
      for (index_t i = 0; i < 7; ++i) v[static_cast<std::size_t>(i + 7 * (j + 5 * k))] = static_cast<I>(region_of(i, j, k));
  if (changed) v[static_cast<std::size_t>(4 + 7 * (3 + 5 * 2))] = static_cast<I>(changed);  // node (4, 3, 2)
  write_dataset(file, "/region", ftype, mtype, {4, 5, 7}, v.data());
}

}  // namespace

// Each material's conductivity (a number, or per axis) and heat capacity
// become refs to the region field with the values by id, ids ascending; one
// ref for all axes when every material's K is one number; the resolved
// config (outputs, checkpoints, restarts) reads back the same.
TEST(Regions, ConfigGivesEachPropertyByRegion) {
  const RunConfig c = parse_config(
      regions("{die: {id: 7, conductivity: {x: 3, y: 3, z: 1.5}, heat_capacity: 2e6}, "
              "copper: {id: 1, conductivity: 400, heat_capacity: 3.45e6}, si: {id: 2, conductivity: 150, heat_capacity: 1.63e6}}"),
      "case.yaml");
  const MaterialConfig& m = c.material;
  ASSERT_TRUE(m.regions.given());
  EXPECT_EQ(m.regions.dataset, "/region");
  ASSERT_EQ(m.materials.size(), 3u);
  EXPECT_FALSE(m.isotropic_field);
  for (int a = 0; a < 3; ++a) {
    ASSERT_TRUE(m.conductivity[a].given());
    ASSERT_NE(m.conductivity[a].by_region, nullptr);
    const auto& v = m.conductivity[a].by_region->value;
    ASSERT_EQ(v.size(), 3u);
    EXPECT_EQ(v[0], (std::pair<long long, double>{1, 400.0}));
    EXPECT_EQ(v[1], (std::pair<long long, double>{2, 150.0}));
    EXPECT_EQ(v[2], (std::pair<long long, double>{7, a == 2 ? 1.5 : 3.0}));
  }
  EXPECT_EQ(m.capacity.by_region->value[2], (std::pair<long long, double>{7, 2e6}));
  EXPECT_TRUE(m.any_field());
  EXPECT_EQ(c.problem.scheme, SchemeType::Strang);  // K varies in 3D: the splitting that stays stable
  ASSERT_NE(c.resolved_yaml.find("regions: {file: r.h5, dataset: /region}"), std::string::npos) << c.resolved_yaml;
  const RunConfig back = parse_config(c.resolved_yaml, "resolved.yaml");
  EXPECT_EQ(back.resolved_yaml, c.resolved_yaml);
  EXPECT_EQ(back.material.conductivity[2].by_region->value, m.conductivity[2].by_region->value);

  // 2D (nz = 1): a per-axis conductivity names x and y only, and the
  // resolved config reads back (a restart reads it).
  const RunConfig flat = parse_config(
      "grid: {nx: 7, ny: 5, nz: 1}\ntime: {dt: 0.1, steps: 1}\ninitial: {value: 1}\nmaterial:\n"
      "  regions: {file: r.h5, dataset: /region}\n"
      "  materials: {a: {id: 1, conductivity: {x: 50, y: 20}, heat_capacity: 3e6}, b: {id: 2, conductivity: 5, heat_capacity: 2e6}}\n",
      "case.yaml");
  EXPECT_NE(flat.resolved_yaml.find("a: {id: 1, conductivity: {x: 50, y: 20}, heat_capacity: 3000000}"), std::string::npos)
      << flat.resolved_yaml;
  EXPECT_EQ(parse_config(flat.resolved_yaml, "resolved.yaml").resolved_yaml, flat.resolved_yaml);

  const RunConfig iso = parse_config(
      regions("{a: {id: 1, conductivity: 400, heat_capacity: 1}, b: {id: 2, conductivity: 2, heat_capacity: 1}}"),
      "case.yaml");
  EXPECT_TRUE(iso.material.isotropic_field);
  EXPECT_EQ(iso.material.conductivity[0].by_region, iso.material.conductivity[2].by_region);
}

// Tables of temperature (and one material without a region field): the
// materials keep them, K and c are left to attach_fields' TemperatureState,
// 3D takes the Strang step, and the resolved config reads back the same.
TEST(Regions, TablesOfTemperature) {
  const RunConfig c = parse_config(
      regions("{si: {id: 2, conductivity: [[300, 148], [350, 119], [400, 98.9]], heat_capacity: 1.66e6}, "
              "cu: {id: 1, conductivity: 400, heat_capacity: [[250, 3.3e6], [450, 3.6e6]]}}"),
      "case.yaml");
  const MaterialConfig& m = c.material;
  EXPECT_TRUE(m.temperature);
  EXPECT_TRUE(m.isotropic_field);
  EXPECT_FALSE(m.conductivity[0].given());  // the TemperatureState's field, not a ref
  ASSERT_EQ(m.materials.size(), 2u);
  EXPECT_EQ(m.materials[0].conductivity[2].t, (std::vector<double>{300, 350, 400}));
  EXPECT_EQ(m.materials[0].conductivity[2].v, (std::vector<double>{148, 119, 98.9}));
  EXPECT_TRUE(m.materials[1].conductivity[0].constant());
  EXPECT_EQ(m.materials[1].capacity.v, (std::vector<double>{3.3e6, 3.6e6}));
  EXPECT_EQ(c.problem.scheme, SchemeType::Strang);
  EXPECT_NE(c.resolved_yaml.find("si: {id: 2, conductivity: [[300, 148], [350, 119], [400, 98.9]], heat_capacity: 1660000}"),
            std::string::npos)
      << c.resolved_yaml;
  EXPECT_EQ(parse_config(c.resolved_yaml, "resolved.yaml").resolved_yaml, c.resolved_yaml);

  const RunConfig one = parse_config(std::string(kHead) + "material:\n  materials:\n    steel: {conductivity: "
                                                          "{x: [[250, 1], [650, 2]], y: 3, z: 3}, heat_capacity: 2}\n",
                                     "case.yaml");
  EXPECT_TRUE(one.material.temperature);
  EXPECT_FALSE(one.material.regions.given());
  EXPECT_FALSE(one.material.isotropic_field);
  EXPECT_EQ(one.problem.scheme, SchemeType::Strang);
  EXPECT_EQ(parse_config(one.resolved_yaml, "resolved.yaml").resolved_yaml, one.resolved_yaml);
  // One material of constants: the constant problem.
  const RunConfig constant = parse_config(
      std::string(kHead) + "material: {materials: {steel: {conductivity: 16, heat_capacity: 3.9e6}}}\n", "case.yaml");
  EXPECT_FALSE(constant.material.temperature);
  EXPECT_EQ(constant.problem.alpha[1], 16.0);
  EXPECT_EQ(constant.problem.capacity, 3.9e6);
  EXPECT_EQ(constant.problem.scheme, SchemeType::Douglas);
  // Steady solves, heat flows and the heat flux take tables.
  const std::string steel = "material: {materials: {steel: {conductivity: [[250, 1], [650, 2]], heat_capacity: 2}}}\n";
  EXPECT_TRUE(parse_config("grid: {nx: 7, ny: 5, nz: 4}\ninitial: {value: 300}\n" + steel + "solve: steady\n",
                           "case.yaml")
                  .solve.steady);
  EXPECT_TRUE(parse_config(std::string(kHead) + steel + "diagnostics: {heat_flows: true}\n", "case.yaml")
                  .diagnostics.heat_flows);
  EXPECT_TRUE(parse_config(std::string(kHead) + steel + "output: {file: o.h5, fields: [u, heat_flux]}\n", "case.yaml")
                  .output.heat_flux);
}

// One line each, naming the key: the form's missing, contradictory and
// duplicated pieces, and bad tables of temperature.
TEST(Regions, BadConfigsNameTheKey) {
  const std::string ok = "{a: {id: 1, conductivity: 1, heat_capacity: 1}}";
  expect_config_error(std::string(kHead) + "material: {materials: {a: {conductivity: 1, heat_capacity: 1}, "
                                           "b: {conductivity: 2, heat_capacity: 1}}}",
                      R"(case\.yaml:4:\d+: material\.regions: missing; 2 materials need the region field)");
  expect_config_error(std::string(kHead) + "material: {materials: " + ok + "}",
                      R"(material\.materials\.a\.id: an id without material\.regions)");
  expect_config_error(std::string(kHead) + "material: {regions: {file: r.h5, dataset: /r}}",
                      R"(material\.materials: missing; material\.regions needs the materials)");
  expect_config_error(std::string(kHead) + "material:\n  conductivity: 3\n  regions: {file: r.h5, dataset: /r}\n  materials: " + ok,
                      R"(material\.conductivity: given beside material\.regions)");
  expect_config_error(regions("{a: {id: 1, conductivity: 1, heat_capacity: 1}, b: {id: 1, conductivity: 2, heat_capacity: 1}}"),
                      R"(material\.materials\.b\.id: id 1 is also material 'a''s; each id names one material)");
  expect_config_error(regions("{a: {conductivity: 1, heat_capacity: 1}}"), R"(material\.materials\.a\.id: missing)");
  expect_config_error(regions("{a: {id: 1, heat_capacity: 1}}"), R"(material\.materials\.a\.conductivity: missing)");
  expect_config_error(regions("{a: {id: 1, conductivity: 1}}"), R"(material\.materials\.a\.heat_capacity: missing)");
  expect_config_error(regions("{a: {id: 1.5, conductivity: 1, heat_capacity: 1}}"),
                      R"(material\.materials\.a\.id: expected an integer, got '1\.5')");
  expect_config_error(regions("{a: {id: 3000000000, conductivity: 1, heat_capacity: 1}}"),
                      R"(material\.materials\.a\.id: expected an integer id from -2147483648 to 2147483647)");
  expect_config_error(regions("{a: {id: 1, conductivity: 0, heat_capacity: 1}}"),
                      R"(material\.materials\.a\.conductivity: expected a conductivity > 0)");
  expect_config_error(regions("{a: {id: 1, conductivity: {x: 1, y: 1}, heat_capacity: 1}}"),
                      R"(material\.materials\.a\.conductivity: missing axis z)");
  // Tables of temperature: at least two pairs, temperatures increasing, values > 0.
  expect_config_error(regions("{a: {id: 1, conductivity: [[300, 150]], heat_capacity: 1}}"),
                      R"(case\.yaml:6:\d+: material\.materials\.a\.conductivity: a table of 1 point; expected at least two)");
  expect_config_error(regions("{a: {id: 1, conductivity: [[300, 150], [300, 80]], heat_capacity: 1}}"),
                      R"(material\.materials\.a\.conductivity\[1\]: expected temperatures that increase strictly, got T = '300' after T = '300')");
  expect_config_error(regions("{a: {id: 1, conductivity: [[400, 150], [300, 80]], heat_capacity: 1}}"),
                      R"(material\.materials\.a\.conductivity\[1\]: expected temperatures that increase strictly)");
  expect_config_error(regions("{a: {id: 1, conductivity: 1, heat_capacity: [[300, 1], [400, -2]]}}"),
                      R"(material\.materials\.a\.heat_capacity\[1\]: expected a volumetric heat capacity > 0)");
  expect_config_error(regions("{a: {id: 1, conductivity: [[300, .nan], [400, 2]], heat_capacity: 1}}"),
                      R"(material\.materials\.a\.conductivity\[0\]: expected a number, got '\.nan')");
  expect_config_error(regions("{a: {id: 1, conductivity: [[.nan, 1], [400, 2]], heat_capacity: 1}}"),
                      R"(material\.materials\.a\.conductivity\[0\]: expected a number, got '\.nan')");
  expect_config_error(regions("{a: {id: 1, conductivity: [[300, 1, 2], [400, 2]], heat_capacity: 1}}"),
                      R"(material\.materials\.a\.conductivity\[0\]: expected a pair \[T, value\] \(temperature \[K\], conductivity > 0 \[W/\(m K\)\]\), got 3 values)");
  expect_config_error(regions("{a: {id: 1, conductivity: {x: [[300, 1]], y: 1, z: 1}, heat_capacity: 1}}"),
                      R"(material\.materials\.a\.conductivity\.x: a table of 1 point)");
  expect_config_error(regions("{a: {id: 1, conductivity: [], heat_capacity: 1}}"),
                      R"(material\.materials\.a\.conductivity: a table of 0 points)");
  expect_config_error(regions("{a: {id: 1, conductivity: {file: k.h5, dataset: /K}, heat_capacity: 1}}"),
                      R"(material\.materials\.a\.conductivity: a field inside a material)");
  expect_config_error(regions("{a: {id: 1, conductivty: 1, heat_capacity: 1}}"),
                      R"(material\.materials\.a\.conductivty: unknown key 'conductivty' \(did you mean 'conductivity'\?\))");
  expect_config_error(regions("{}"), R"(material\.materials: expected a mapping of named materials .*got an empty one)");
  expect_config_error("diffusivity: 1\n" + regions(ok), R"(diffusivity: contradicts material\.regions)");
}

// A RegionField's values are its materials' by the ids read from the file
// (8-, 32- and 64-bit, signed and unsigned ids alike), box by box as a rank
// reads them; its checksum is that of a field file of the same values; an id
// no material has names the node, the id and the ids there are; float ids are
// refused when the header is read.
TEST_F(Hdf5Test, RegionFieldMapsIdsToTheMaterialsValues) {
  write_regions<std::int32_t>(path("r.h5"), H5T_STD_I32LE, H5T_NATIVE_INT32);
  write_regions<std::uint8_t>(path("r8.h5"), H5T_STD_U8LE, H5T_NATIVE_UINT8);
  write_regions<std::int64_t>(path("r64.h5"), H5T_STD_I64BE, H5T_NATIVE_INT64);
  write_regions<std::int32_t>(path("bad.h5"), H5T_STD_I32LE, H5T_NATIVE_INT32, 5);
  write_regions<double>(path("float.h5"), H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE);
  const auto value_of = [](int id) { return id == 1 ? 400.0 : id == 2 ? 150.0 : 3.0; };
  std::vector<double> want(7 * 5 * 4);
  for (index_t k = 0; k < 4; ++k)
    for (index_t j = 0; j < 5; ++j)
      for (index_t i = 0; i < 7; ++i) want[static_cast<std::size_t>(i + 7 * (j + 5 * k))] = value_of(region_of(i, j, k));
  write_dataset(path("k.h5"), "/K", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, {4, 5, 7}, want.data());
  const Hdf5Field k_file(inspect_field(path("k.h5"), "/K"), "conductivity", Hdf5Field::Values::Positive);

  RunConfig c = parse_config(regions("{copper: {id: 1, conductivity: 400, heat_capacity: 3.45e6}, "
                                     "si: {id: 2, conductivity: 150, heat_capacity: 1.63e6}, "
                                     "tim: {id: 7, conductivity: {x: 3, y: 3, z: 1.5}, heat_capacity: 2e6}}"),
                             "case.yaml");
  c.base_dir = dir_.string();
  const auto attached = [&](const char* file) {  // c with its region field in `file`
    RunConfig cf = c;
    for (FieldRef* f : {&cf.material.conductivity[0], &cf.material.conductivity[1], &cf.material.conductivity[2],
                        &cf.material.capacity})
      f->file = file;
    attach_fields(cf);
    return cf;
  };
  for (const char* file : {"r.h5", "r8.h5", "r64.h5"}) {
    const RunConfig cf = attached(file);
    const auto& mat = cf.problem.material;
    ASSERT_NE(mat.conductivity[0], nullptr);
    EXPECT_NE(mat.conductivity[0], mat.conductivity[2]) << "per-axis values: a source per axis";
    std::vector<double> got(want.size(), -1.0);
    mat.conductivity[0]->read({{0, 0, 0}}, {{7, 5, 4}}, got.data());
    EXPECT_EQ(got, want) << file;
    EXPECT_EQ(mat.conductivity[0]->checksum(), k_file.checksum()) << file;
    // A box with its ghost indices, as a rank of a distributed run reads it.
    const std::array<std::vector<index_t>, 3> idx{{{1, 2, 3, 4}, {0, 1, 3}, {2, 3}}};
    std::vector<double> box(4 * 3 * 2, -1.0);
    mat.conductivity[2]->read_indices(idx, box.data(), false);
    for (std::size_t q = 0; q < box.size(); ++q) {
      const index_t i = idx[0][q % 4], j = idx[1][(q / 4) % 3], kk = idx[2][q / 12];
      const int id = region_of(i, j, kk);
      EXPECT_EQ(box[q], id == 7 ? 1.5 : value_of(id)) << file << " node " << i << " " << j << " " << kk;
    }
    std::vector<double> cap(want.size());
    mat.capacity->read({{0, 0, 0}}, {{7, 5, 4}}, cap.data());
    EXPECT_EQ(cap[0], 3.45e6);
    EXPECT_EQ(cap[6], 1.63e6);
  }
  const RunConfig bad = attached("bad.h5");
  std::vector<double> all(want.size());
  expect_throw_matching<IoError>(
      [&] { bad.problem.material.conductivity[0]->read({{0, 0, 0}}, {{7, 5, 4}}, all.data()); },
      R"(bad\.h5:/region: the region field holds 5 at node \(i, j, k\) = \(4, 3, 2\) \(dataset index \[2, 3, 4\]\), and no material of material\.materials has that id \(ids: 1 2 7\))");
  EXPECT_THROW((void)bad.problem.material.capacity->checksum(), IoError);  // the run's probe reads every id
  EXPECT_NO_THROW(bad.problem.material.conductivity[0]->read({{0, 0, 0}}, {{3, 5, 4}}, all.data()));
  expect_throw_matching<IoError>([&] { (void)inspect_field(path("float.h5"), "/region", "the region field", true); },
                                 R"(float\.h5:/region: expected integer region ids, got 64-bit floats)");
  // Without integers, an integer dataset stays refused as a field.
  EXPECT_THROW((void)inspect_field(path("r.h5"), "/region"), IoError);
}

// Radiating faces (#57): alone (type radiation) or beside a flux or
// convective face; the resolved config round-trips and the problem's
// identity names the radiation; what radiation cannot take is refused by key.
TEST(Radiation, FacesAloneOrBesideTheirOwnCondition) {
  const std::string head = std::string(kHead) + "material: {conductivity: 20, heat_capacity: 3e6}\n";
  const RunConfig c = parse_config(
      head + "boundary:\n  x: {lo: {type: radiation, emissivity: 0.8, ambient: 300}, hi: {type: convective, h: 10, "
             "ambient: 290, radiation: {emissivity: 0.5, ambient: 280}}}\n  y: {lo: {type: neumann, flux: 100, "
             "radiation: {emissivity: 1, ambient: 0}}, hi: insulated}\n  z: {lo: {type: dirichlet, value: 400}, hi: "
             "insulated}\n",
      "case.yaml");
  const HeatProblem& p = c.problem;
  EXPECT_TRUE(p.radiates());
  EXPECT_EQ(p.lo[0], Boundary::Neumann);
  EXPECT_EQ(p.lo_data[0].flux, 0.0);
  EXPECT_EQ(p.lo_data[0].emissivity, 0.8);
  EXPECT_EQ(p.lo_data[0].radiation_ambient, 300.0);
  EXPECT_EQ(p.hi[0], Boundary::Robin);
  EXPECT_EQ(p.hi_data[0].h, 10.0);
  EXPECT_EQ(p.hi_data[0].ambient, 290.0);
  EXPECT_EQ(p.hi_data[0].emissivity, 0.5);
  EXPECT_EQ(p.hi_data[0].radiation_ambient, 280.0);
  EXPECT_EQ(p.lo_data[1].flux, 100.0);
  EXPECT_EQ(p.lo_data[1].emissivity, 1.0);
  EXPECT_EQ(p.hi_data[1].emissivity, 0.0);
  EXPECT_EQ(parse_config(c.resolved_yaml, "resolved.yaml").resolved_yaml, c.resolved_yaml) << c.resolved_yaml;
  const std::string items = problem_items_text(problem_items(c));
  EXPECT_NE(items.find("boundary.x_lo.radiation = emissivity 0.8, ambient 300"), std::string::npos) << items;
  EXPECT_NE(items.find("boundary.x_hi.radiation = emissivity 0.5, ambient 280"), std::string::npos) << items;
  EXPECT_EQ(items.find("boundary.y_hi.radiation"), std::string::npos) << items;

  const std::string rad = "{type: radiation, emissivity: 0.8, ambient: 300}";
  auto with_x_hi = [&](const std::string& face, const std::string& more = "") {
    return head + "boundary: {x_hi: " + face + ", default: insulated}\n" + more;
  };
  expect_config_error(with_x_hi("{type: radiation, emissivity: 0, ambient: 300}"),
                      R"(case\.yaml:5:\d+: boundary\.x_hi\.emissivity: expected an emissivity 0 < e <= 1, got '0')");
  expect_config_error(with_x_hi("{type: radiation, emissivity: 1.5, ambient: 300}"),
                      R"(boundary\.x_hi\.emissivity: expected an emissivity 0 < e <= 1, got '1\.5')");
  expect_config_error(with_x_hi("{type: radiation, emissivity: .nan, ambient: 300}"),
                      R"(boundary\.x_hi\.emissivity: expected a number, got '\.nan')");
  expect_config_error(with_x_hi("{type: radiation, emissivity: 0.8, ambient: -20}"),
                      R"(boundary\.x_hi\.ambient: expected an absolute temperature >= 0 K \(radiation needs kelvin)");
  expect_config_error(with_x_hi("{type: radiation, emissivity: 0.8}"), R"(boundary\.x_hi\.ambient: missing)");
  expect_config_error(with_x_hi("radiation"), R"(boundary\.x_hi: a radiating face needs its data)");
  expect_config_error(with_x_hi("{type: radiation, emissivity: 0.8, ambient: 300, table: [[0, 1], [1, 2]]}"),
                      R"(boundary\.x_hi\.table: does not belong to a radiation face; expected one of: type, emissivity, ambient)");
  expect_config_error(with_x_hi("{type: dirichlet, value: 300, radiation: {emissivity: 0.5, ambient: 300}}"),
                      R"(boundary\.x_hi\.radiation: does not belong to a dirichlet face)");
  expect_config_error(with_x_hi("{type: insulated, radiation: {emissivity: 0.5, ambient: 300, h: 2}}"),
                      R"(boundary\.x_hi\.radiation\.h: unknown key 'h'; expected one of: emissivity, ambient)");
  expect_config_error(with_x_hi("{type: insulated, radiation: 0.5}"),
                      R"(boundary\.x_hi\.radiation: expected \{emissivity: 0\.\.1, ambient: T \[K\]\}, got '0\.5')");
  expect_config_error(with_x_hi("{type: radiation, emissivity: 0.5, ambient: 1e80}"),
                      R"(boundary\.x_hi\.ambient: 2 emissivity sigma ambient\^4 / h_x = .* = inf is not a finite float64 number)");
  // Celsius beside a radiating face: a negative temperature anywhere.
  expect_config_error(with_x_hi(rad, "").replace(head.find("initial: {value: 1}"), 19, "initial: {value: -5}"),
                      R"(initial\.value: expected an absolute temperature >= 0 K: boundary\.x_hi radiates)");
  expect_config_error(head + "boundary: {x_hi: " + rad + ", x_lo: {type: convective, h: 3, ambient: -10}, default: insulated}\n",
                      R"(boundary\.x_lo\.ambient: expected an absolute temperature >= 0 K: boundary\.x_hi radiates)");
  expect_config_error(head + "boundary: {x_hi: " + rad + ", x_lo: {type: dirichlet, value: -10}, default: insulated}\n",
                      R"(boundary\.x_lo\.value: expected an absolute temperature >= 0 K)");
  // A steady solve starts from a temperature in kelvin.
  expect_config_error(std::string("grid: {nx: 7, ny: 5, nz: 4}\nmaterial: {conductivity: 20, heat_capacity: 3e6}\n") +
                          "boundary: {x_hi: " + rad + ", x_lo: {type: dirichlet, value: 400}, default: insulated}\n"
                          "solve: steady\n",
                      R"(case\.yaml:1:1: initial: missing; a steady solve with radiating faces starts from temperatures in kelvin)");
  // Heat flows and the heat flux count the radiation.
  EXPECT_TRUE(parse_config(with_x_hi(rad, "diagnostics: {heat_flows: true}\n"), "case.yaml").diagnostics.heat_flows);
  EXPECT_TRUE(parse_config(with_x_hi(rad, "output: {file: o.h5, fields: [u, heat_flux]}\n"), "case.yaml").output.heat_flux);
}
