// YAML configs → RunConfig: values, defaults, overrides, and errors that name
// file:line:column and the key.

#include <adi/io/io.hpp>
#include <adi/step_plan.hpp>

#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <regex>

using namespace adi;
using namespace adi::io;

namespace {

const char* kGood = R"(grid: {nx: 33, ny: 17, nz: 9}
domain: {lx: 2.0, ly: 1.0, lz: 0.5}
diffusivity: {x: 1.0, y: 0.5, z: 0.25}
boundary: {x: neumann, y: {lo: dirichlet, hi: neumann}, z_lo: dirichlet, z_hi: neumann}
time: {dt: 0.001, steps: 40}
scheme: {theta: 0.75}
precision: float32
backend: cpu
)";

// Expects parse_config(text) to throw a ConfigError whose message matches `re`.
void expect_error(const std::string& text, const std::string& re, const std::vector<std::string>& sets = {}) {
  try {
    parse_config(text, "case.yaml", sets);
    FAIL() << "expected a ConfigError matching " << re;
  } catch (const ConfigError& e) {
    EXPECT_TRUE(std::regex_search(e.what(), std::regex(re))) << "message: " << e.what() << "\nexpected: " << re;
    EXPECT_EQ(std::string(e.what()).find('\n'), std::string::npos) << "message must be one line: " << e.what();
  }
}

TEST(Config, ReadsEverySection) {
  const RunConfig c = parse_config(kGood, "case.yaml");
  EXPECT_EQ(c.problem.n[0], 33);
  EXPECT_EQ(c.problem.n[2], 9);
  EXPECT_DOUBLE_EQ(c.problem.length[0], 2.0);
  EXPECT_DOUBLE_EQ(c.problem.alpha[2], 0.25);
  EXPECT_EQ(c.problem.lo[0], Boundary::Neumann);
  EXPECT_EQ(c.problem.hi[0], Boundary::Neumann);
  EXPECT_EQ(c.problem.lo[1], Boundary::Dirichlet);
  EXPECT_EQ(c.problem.hi[1], Boundary::Neumann);
  EXPECT_EQ(c.problem.lo[2], Boundary::Dirichlet);
  EXPECT_EQ(c.problem.hi[2], Boundary::Neumann);
  EXPECT_EQ(c.steps, 40);
  EXPECT_DOUBLE_EQ(c.problem.theta, 0.75);
  EXPECT_EQ(c.precision, Precision::F32);
  EXPECT_EQ(c.backend, Backend::Cpu);
  EXPECT_NE(c.resolved_yaml.find("theta: 0.75"), std::string::npos) << c.resolved_yaml;
}

TEST(Config, TEndRoundsStepsUpAndShrinksDt) {
  const RunConfig c = parse_config("grid: {nx: 3, ny: 3, nz: 3}\ntime: {dt: 0.3, t_end: 1.0}\n", "c.yaml");
  EXPECT_EQ(c.steps, 4);
  EXPECT_DOUBLE_EQ(c.problem.dt, 0.25);
  EXPECT_DOUBLE_EQ(c.t_end, 1.0);
  // Defaults are filled in.
  EXPECT_EQ(c.precision, Precision::F64);
  EXPECT_EQ(c.backend, Backend::Auto);
  EXPECT_DOUBLE_EQ(c.problem.theta, 0.5);
}

TEST(Config, OverridesAreMergedAndChecked) {
  const RunConfig c = parse_config(kGood, "case.yaml", {"grid.nx=65", "scheme.theta=1", "boundary.z=dirichlet"});
  EXPECT_EQ(c.problem.n[0], 65);
  EXPECT_DOUBLE_EQ(c.problem.theta, 1.0);
  EXPECT_EQ(c.problem.lo[2], Boundary::Dirichlet);
  expect_error(kGood, R"(^--set grid\.nx=abc: grid\.nx: expected an integer, got 'abc')", {"grid.nx=abc"});
  expect_error(kGood, R"(^--set grid\.nxx=3: grid\.nxx: unknown key 'nxx' \(did you mean 'nx'\?\))",
               {"grid.nxx=3"});
  expect_error(kGood, R"(^--set foo: expected key\.path=value)", {"foo"});
}

TEST(Config, OverridesReplaceDeleteAndNameThemselves) {
  const std::string text = "grid: {nx: 9, ny: 9, nz: 9}\ntime: {dt: 0.1, t_end: 1.0}\ndiffusivity: 2.0\n";
  // steps replaces the file's t_end (and the other way round); both on the
  // command line contradict each other (AKeyOverriddenTwiceIsAnError).
  EXPECT_EQ(parse_config(text, "case.yaml", {"time.steps=3"}).steps, 3);
  EXPECT_EQ(parse_config("grid: {nx: 9, ny: 9, nz: 9}\ntime: {dt: 0.1, steps: 3}\n", "case.yaml", {"time.t_end=0.5"})
                .steps,
            5);
  // null deletes: the default applies, or the reader says what is missing,
  // naming the override.
  EXPECT_DOUBLE_EQ(parse_config(text, "case.yaml", {"diffusivity=null"}).problem.alpha[0], 1.0);
  expect_error(text, R"(^--set time\.dt=null: time\.dt: missing)", {"time.dt=null"});
  expect_error(text, R"(^--set time\.steps=~: time\.steps: nothing to delete)", {"time.steps=~"});
  // One axis of a scalar: says where the scalar is.
  expect_error(text, R"(^--set diffusivity\.x=1: diffusivity\.x: cannot set a key inside diffusivity, which is '2\.0' \(case\.yaml:3:14\))",
               {"diffusivity.x=1"});
  expect_error(text, R"(diffusivity\.x: overlaps another override on the command line \(--set diffusivity=3\))",
               {"diffusivity=3", "diffusivity.x=1"});
  // Errors caused by an override name it, not the file's line.
  expect_error(text, R"(^--set time\.dt=-1: time\.dt: expected a time step > 0)", {"time.dt=-1"});
  expect_error(text, R"(^--set time\.dt=1e300: time\.dt: the mesh ratio)", {"time.steps=2", "time.dt=1e300", "diffusivity=1e300"});
  expect_error("grid: {nx: 9, ny: 9, nz: 9}\ntime: {dt: 1e300, steps: 2}\n",
               R"(^--set diffusivity=1e300: diffusivity: the mesh ratio)", {"diffusivity=1e300"});
}

TEST(Config, TEndThatIsAWholeNumberOfStepsKeepsDtExactly) {
  // 0.07 / 0.0002 = 350.00000000000006 and 0.07 / 350 != 0.0002: dt is kept
  // (a restart extended by --set time.t_end must keep the checkpoint's dt).
  const RunConfig c = parse_config("grid: {nx: 3, ny: 3, nz: 3}\ntime: {dt: 0.0002, t_end: 0.07}\n", "c.yaml");
  EXPECT_EQ(c.steps, 350);
  EXPECT_EQ(c.problem.dt, 0.0002);
  EXPECT_EQ(c.dt_given, 0.0);
  const RunConfig d = parse_config("grid: {nx: 3, ny: 3, nz: 3}\ntime: {dt: 0.3, t_end: 1.0}\n", "c.yaml");
  EXPECT_EQ(d.dt_given, 0.3);
  // Numbers in the resolved config: the shortest text that reads back exactly.
  EXPECT_NE(c.resolved_yaml.find("time: {dt: 0.0002, steps: 350}"), std::string::npos) << c.resolved_yaml;
  EXPECT_EQ(parse_config(c.resolved_yaml, "again.yaml").problem.dt, c.problem.dt);
  const RunConfig e = parse_config(
      "grid: {nx: 3, ny: 3, nz: 3}\ntime: {dt: 0.1, t_end: 0.7}\ndomain: {lx: 0.30000000000000004}\n", "c.yaml");
  EXPECT_NE(e.resolved_yaml.find("lx: 0.30000000000000004"), std::string::npos) << e.resolved_yaml;
  EXPECT_DOUBLE_EQ(d.problem.dt, 0.25);
}

TEST(Config, UnknownKeyNamesLineColumnAndSuggestion) {
  expect_error("grid: {nx: 9, ny: 9, nz: 9}\ntime: {dt: 0.1, steps: 2}\nprecison: float32\n",
               R"(^case\.yaml:3:1: precison: unknown key 'precison' \(did you mean 'precision'\?\))");
}

TEST(Config, NegativeSizeIsOutOfRange) {
  expect_error("grid:\n  nx: -4\n  ny: 9\n  nz: 9\ntime: {dt: 0.1, steps: 2}\n",
               R"(^case\.yaml:2:7: grid\.nx: expected an integer >= 3 .*got '-4')");
}

TEST(Config, WrongTypeNamesKey) {
  expect_error("grid: {nx: 9, ny: 9, nz: 9}\ntime:\n  dt: \"abc\"\n  steps: 2\n",
               R"(^case\.yaml:3:7: time\.dt: expected a number, got 'abc')");
  expect_error("grid: {nx: 9.5, ny: 9, nz: 9}\ntime: {dt: 0.1, steps: 2}\n",
               R"(^case\.yaml:1:12: grid\.nx: expected an integer, got '9\.5')");
  expect_error("grid: {nx: 9, ny: 9, nz: 9}\ntime: {dt: .nan, steps: 2}\n", R"(time\.dt: expected a (finite )?number)");
  // Numbers a double does not hold as written: named as such, not as "not a number".
  for (const char* v : {"1e400", "-1e400", "1e-320", "1e-400"})
    expect_error(std::string("grid: {nx: 9, ny: 9, nz: 9}\ntime: {dt: ") + v + ", steps: 2}\n",
                 std::string(R"(time\.dt: expected a number a double holds \(magnitude 2\.2e-308 to 1\.8e308, or 0\), got ')") +
                     v + "'");
  for (const char* v : {"99999999999999999999", "-9223372036854775809"})
    expect_error(std::string("grid: {nx: 9, ny: 9, nz: 9}\ntime: {dt: 0.1, steps: ") + v + "}\n",
                 std::string(R"(time\.steps: expected an integer of magnitude at most 9223372036854775807, got ')") + v +
                     "'");
  expect_error("grid: [1, 2, 3]\ntime: {dt: 0.1, steps: 2}\n", R"(^case\.yaml:1:7: grid: expected a mapping)");
}

TEST(Config, SyntaxErrorHasPosition) {
  expect_error("grid: {nx: 9, ny: 9, nz: 9\ntime: {dt: 0.1}\n", R"(^case\.yaml:\d+:\d+: YAML syntax error)");
}

TEST(Config, MissingSectionsAndChoices) {
  expect_error("time: {dt: 0.1, steps: 2}\n", R"(grid: missing section)");
  expect_error("grid: {nx: 9, ny: 9, nz: 9}\n", R"(time: missing section)");
  expect_error("grid: {nx: 9, ny: 9, nz: 9}\ntime: {dt: 0.1}\n", R"(time: missing time\.steps or time\.t_end)");
  expect_error("grid: {nx: 9, ny: 9, nz: 9}\ntime: {dt: 0.1, steps: 2}\nbackend: gpu\n",
               R"(^case\.yaml:3:10: backend: expected one of cpu, cuda, auto, got 'gpu')");
  expect_error("grid: {nx: 9, ny: 9, nz: 9}\ntime: {dt: 0.1, steps: 2}\nscheme: {theta: 0.3}\n",
               R"(scheme\.theta: expected 0\.5 <= theta <= 1)");
  expect_error("grid: {nx: 9, ny: 9, nz: 9}\ntime: {dt: 0.1, steps: 2}\nboundary: {x: sideways, y: dirichlet, z: dirichlet}\n",
               R"(boundary\.x: expected one of dirichlet, neumann, insulated, convective, robin, periodic, radiation, got 'sideways')");
  expect_error("", R"(the config is empty)");
  expect_error("- 1\n- 2\n", R"(expected a mapping of sections)");
}

// Found by tests/fuzz (regressions/config/yaml_error_quotes_nul_byte): yaml-cpp
// quotes the offending character, which may be a newline or a NUL; values and
// keys quoted in messages may hold any byte. Messages stay one line.
TEST(Config, MessagesQuotingInputStayOneLine) {
  expect_error(std::string("grid: \"a\\\0b\"\n", 12), R"(YAML syntax error: unknown escape character: \\x00)");
  expect_error("grid: {nx: 9, ny: 9, nz: 9}\ntime: {dt: \"1\\n2\", steps: 2}\n",
               R"(time\.dt: expected a number, got '1\\n2')");
  expect_error("grid: {nx: 9, ny: 9, nz: 9}\ntime: {dt: 0.1, steps: 2}\n\"a\\tb\": 1\n",
               R"(unknown key 'a\\tb')");
  // A long value is cut in the message.
  expect_error("grid: {nx: 9, ny: 9, nz: 9}\ntime: {dt: " + std::string(500, '7') + "x, steps: 2}\n",
               R"(got '7{60}\.\.\.'$)");
  EXPECT_EQ(printable("caf\xc3\xa9 \xff\x01"), "caf\xc3\xa9 \\xff\\x01");  // UTF-8 kept, the rest escaped
  // Every error is one line, whatever its text quotes; escaping twice
  // changes nothing.
  EXPECT_STREQ(adi::Error("a\nb\x01").what(), "a\\nb\\x01");
  EXPECT_STREQ(adi::InvalidArgument(printable("x\ty")).what(), "x\\ty");
}

TEST(Config, DuplicateKeysNameBothLines) {
  // yaml-cpp would keep the first silently; YAML forbids the repeat.
  expect_error("grid: {nx: 9, ny: 9, nz: 9}\ntime:\n  dt: 0.1\n  steps: 2\n  dt: 0.2\n",
               R"(^case\.yaml:5:3: time\.dt: duplicate key 'dt': first given at line 3)");
  expect_error("grid: {nx: 9, ny: 9, nz: 9}\ntime: {dt: 0.1, steps: 2}\ngrid: {nx: 5, ny: 5, nz: 5}\n",
               R"(^case\.yaml:3:1: grid: duplicate key 'grid': first given at line 1)");
  expect_error("grid: {nx: 9, ny: 9, nz: 9}\ntime: {dt: 0.1, steps: 2}\nboundary: [{x: neumann, x: dirichlet}]\n",
               R"(^case\.yaml:3:25: boundary\.x: duplicate key 'x')");
  expect_error(kGood, R"(^--set grid=\{nx: 5, nx: 7\} \(value line 1, column 9\): grid\.nx: duplicate key 'nx')",
               {"grid={nx: 5, nx: 7}"});
  // Aliases share their anchor's node: walked once, and no false repeat.
  expect_error("grid: &g {nx: 9, ny: 9, nz: 9}\ntime: {dt: 0.1, steps: 2}\nx: &a [*g, *g, [*g]]\n",
               R"(^case\.yaml:3:1: x: unknown key 'x')");
}

TEST(Config, ASecondDocumentIsAnError) {
  // YAML::Load keeps the first document and drops the rest without a word.
  expect_error("grid: {nx: 9, ny: 9, nz: 9}\ntime: {dt: 0.1, steps: 2}\n---\ngrid: {nx: 5, ny: 5, nz: 5}\n",
               R"(^case\.yaml:4:1: a second YAML document \(after '---' or '\.\.\.'\): a config is one document)");
  expect_error(kGood, R"(^--set grid=\{nx: 5, ny: 5, nz: 5\}\\n---\\nx: 1: grid: a second YAML document)",
               {"grid={nx: 5, ny: 5, nz: 5}\n---\nx: 1"});
  expect_error("---\ngrid: {nx: 9, ny: 9, nz: 9}\ntime: {dt: 0.1, steps: 2}\n...\n# notes\nx: 1\n",
               R"(^case\.yaml:6:1: a second YAML document)");
  expect_error("---\n---\ngrid: {nx: 9, ny: 9, nz: 9}\ntime: {dt: 0.1, steps: 2}\n",
               R"(^case\.yaml:3:1: a second YAML document)");
  // yaml-cpp's LoadAll never returned on a lone ',' (fuzz_config): a value
  // of nothing, which deletes the key, and no hang.
  expect_error(kGood, R"(^--set grid\.nx=,: grid\.nx: missing)", {"grid.nx=,"});
  // Markers around the one document, and an empty document after it, are fine.
  EXPECT_NO_THROW(parse_config("---\ngrid: {nx: 9, ny: 9, nz: 9}\ntime: {dt: 0.1, steps: 2}\n...\n---\n",
                                   "case.yaml"));
  EXPECT_NO_THROW(parse_config("%YAML 1.2\n--- # the case\ngrid: {nx: 9, ny: 9, nz: 9}\ntime: {dt: 0.1, steps: 2}\n"
                               "--- \n# nothing more\n",
                               "case.yaml"));
}

TEST(Config, AKeyOverriddenTwiceIsAnError) {
  // Each replaces the file's value; two on one command line contradict.
  expect_error(kGood, R"(^--set time\.dt=0\.03: time\.dt: given twice on the command line \(--set time\.dt=0\.02\))",
               {"time.dt=0.02", "time.dt=0.03"});
  expect_error(kGood, R"(^--set grid\.nx=7: grid\.nx: overlaps another override .*\(--set grid=\{nx: 5)",
               {"grid={nx: 5, ny: 5, nz: 5}", "grid.nx=7"});
  expect_error(kGood, R"(^--set grid=\{nx: 5, ny: 5, nz: 5\}: grid: overlaps another override)",
               {"grid.nx=7", "grid={nx: 5, ny: 5, nz: 5}"});
  expect_error(kGood, R"(^--set time\.t_end=2: time\.t_end: contradicts another override: give either time\.t_end )"
               R"(or time\.steps, not both \(--set time\.steps=10\))",
               {"time.steps=10", "time.t_end=2"});
  // Different keys, a key and its sibling, and one override of the file's steps by t_end are fine.
  const RunConfig c = parse_config(kGood, "case.yaml", {"grid.nx=65", "grid.ny=33", "time.t_end=0.5"});
  EXPECT_EQ(c.problem.n[0], 65);
  EXPECT_EQ(c.problem.n[1], 33);
  EXPECT_EQ(c.steps, 500);
}

TEST(Config, OutputStepsWithoutAFileAreAnError) {
  // output.file defaults to "" (no output): asking for output steps without
  // it wrote nothing, without a word.
  expect_error("grid: {nx: 9, ny: 9, nz: 9}\ntime: {dt: 0.1, steps: 2}\noutput: {every: 1}\n",
               R"(^case\.yaml:3:17: output\.every: asks for output steps, but no output\.file is given)");
  expect_error(kGood, R"(^--set output\.every_time=0\.1: output\.every_time: asks for output steps)",
               {"output.every_time=0.1"});
  expect_error("grid: {nx: 9, ny: 9, nz: 9}\ntime: {dt: 0.1, steps: 2}\noutput: {file: o.h5, every: 1}\n",
               R"(^case\.yaml:3:29: output\.every: asks for output steps)", {"output.file=null"});
  // No output said in so many words (file: "", as --set output.file="" turns
  // a case's output off) is taken at its word; so are steps with a file.
  EXPECT_NO_THROW(parse_config(kGood, "case.yaml", {"output={file: '', every: 0}"}));
  EXPECT_NO_THROW(parse_config(kGood, "case.yaml", {"output={file: '', every: 5, every_time: 0.1}"}));
  EXPECT_EQ(parse_config(kGood, "case.yaml", {"output={file: o.h5, every: 4}"}).output.every_steps, 4);
}

TEST(Config, IntegersWithLeadingZerosAreAnError) {
  // 010 is ten to yaml-cpp and eight to a YAML 1.1 reader (PyYAML).
  expect_error("grid: {nx: 010, ny: 9, nz: 9}\ntime: {dt: 0.1, steps: 2}\n",
               R"(^case\.yaml:1:12: grid\.nx: expected a decimal integer without leading zeros .*got '010')");
  expect_error(kGood, R"(^--set time\.steps=-02: time\.steps: expected a decimal integer without leading zeros)",
               {"time.steps=-02"});
  EXPECT_NO_THROW(parse_config("grid: {nx: +9, ny: 9, nz: 9}\ntime: {dt: 0.1, steps: 0}\n", "case.yaml"));
}

TEST(Config, DerivedValuesThatOverflowNameTheKeys) {
  expect_error("grid: {nx: 9, ny: 9, nz: 9}\ndiffusivity: 1e300\ntime: {dt: 1e300, steps: 2}\n",
               R"(^case\.yaml:3:12: time\.dt: the mesh ratio alpha dt / h\^2 along x is inf .*diffusivity.*time\.dt)");
  expect_error("grid: {nx: 9, ny: 9, nz: 9}\ndomain: {ly: 1e-200}\ntime: {dt: 0.1, steps: 2}\n",
               R"(time\.dt: the mesh ratio alpha dt / h\^2 along y is inf .*domain\.ly / \(grid\.ny - 1\))");
  expect_error("grid: {nx: 9, ny: 9, nz: 9}\ndiffusivity: 1e-300\ntime: {dt: 1e303, steps: 1000000}\n",
               R"(time\.steps: time\.steps x time\.dt = 1000000 x 1e\+303 is not a finite time)");
}

TEST(Config, ConfigPathThatIsNotAFileIsNamed) {
  auto message = [](const std::string& path) -> std::string {
    try {
      load_config(path);
    } catch (const ConfigError& e) {
      return e.what();
    }
    return "no error";
  };
  EXPECT_NE(message("/tmp").find("/tmp: cannot read config file: it is a directory"), std::string::npos);
  EXPECT_NE(message("/dev/zero").find("it is a character device"), std::string::npos);
  const std::string big = ::testing::TempDir() + "/adi_big_config.yaml";
  {
    std::ofstream f(big);
    f << "# " << std::string((16u << 20) + 1, 'x') << "\n";
  }
  EXPECT_NE(message(big).find("a config is at most 16 MiB"), std::string::npos) << message(big);
  std::remove(big.c_str());
}

TEST(Config, MissingFileIsAnError) {
  try {
    load_config("/nonexistent/dir/case.yaml");
    FAIL();
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("/nonexistent/dir/case.yaml: cannot open config file"), std::string::npos)
        << e.what();
  }
}

TEST(Config, ShippedConfigsParse) {
  for (const char* f : {"configs/heat.yaml", "configs/neumann.yaml", "configs/anisotropic.yaml",
                        "examples/initial_from_file.yaml"}) {
    const std::string path = std::string(ADI_SOURCE_DIR) + "/" + f;
    EXPECT_NO_THROW(load_config(path)) << path;
  }
  EXPECT_NO_THROW(parse_config(default_config_text(), "<built-in>"));
}

}  // namespace

namespace {

TEST(Config, OriginAndGivenGeometry) {
  const RunConfig c = parse_config(
      "grid: {nx: 5, ny: 6, nz: 7}\ndomain: {lx: 2.0, origin: [-1.0, 0.5, 3]}\ntime: {dt: 0.1, steps: 2}\n", "c.yaml");
  EXPECT_TRUE(c.given.grid);
  EXPECT_TRUE(c.given.length[0]);
  EXPECT_FALSE(c.given.length[1]);
  EXPECT_TRUE(c.given.origin);
  EXPECT_DOUBLE_EQ(c.origin[0], -1.0);
  EXPECT_DOUBLE_EQ(c.origin[2], 3.0);
  // The resolved YAML reads back to the same config (round trip).
  const RunConfig r = parse_config(c.resolved_yaml, "resolved.yaml");
  EXPECT_EQ(r.origin, c.origin);
  EXPECT_EQ(r.problem.length, c.problem.length);
  EXPECT_EQ(r.problem.dt, c.problem.dt);
  EXPECT_EQ(to_yaml(r), c.resolved_yaml);
  expect_error("grid: {nx: 5, ny: 6, nz: 7}\ndomain: {origin: [1, 2]}\ntime: {dt: 0.1, steps: 2}\n",
               R"(^case\.yaml:2:18: domain\.origin: expected \[x0, y0, z0\] .*got 2 values)");
}

TEST(Config, GridMayComeFromTheInitialFile) {
  const RunConfig c =
      parse_config("initial: {file: grid.h5, dataset: /field}\ntime: {dt: 0.1, steps: 2}\n", "c.yaml");
  EXPECT_FALSE(c.given.grid);
  EXPECT_EQ(c.initial.kind, InitialConfig::Kind::File);
  EXPECT_EQ(c.initial.file, "grid.h5");
  EXPECT_EQ(c.initial.dataset, "/field");
  EXPECT_TRUE(c.initial.boundary_from_file);
  // Without a file the grid stays required.
  expect_error("time: {dt: 0.1, steps: 2}\n", R"(grid: missing section)");
  expect_error("initial: {file: ''}\ntime: {dt: 0.1, steps: 2}\n", R"(initial\.file: expected a file name)");
}

TEST(Config, OutputAndCheckpointKeys) {
  const RunConfig c = parse_config(
      "grid: {nx: 5, ny: 6, nz: 7}\ntime: {dt: 0.1, steps: 20}\n"
      "output: {file: out.h5, every: 5, every_time: 0.5, initial: false, final: true, compression: 4, xdmf: false}\n"
      "checkpoint: {file: ck.h5, every: 10, every_seconds: 60}\n",
      "c.yaml");
  EXPECT_EQ(c.output.file, "out.h5");
  EXPECT_EQ(c.output.every_steps, 5);
  EXPECT_DOUBLE_EQ(c.output.every_time, 0.5);
  EXPECT_FALSE(c.output.write_initial);
  EXPECT_EQ(c.output.compression, 4);
  EXPECT_FALSE(c.output.xdmf);
  EXPECT_EQ(c.checkpoint.file, "ck.h5");
  EXPECT_EQ(c.checkpoint.every_steps, 10);
  EXPECT_DOUBLE_EQ(c.checkpoint.every_seconds, 60.0);
  expect_error("grid: {nx: 5, ny: 6, nz: 7}\ntime: {dt: 0.1, steps: 2}\noutput: {compression: 10}\n",
               R"(output\.compression: expected a gzip level 0\.\.9)");
}

TEST(Config, ParallelGrid) {
  const std::string base = "grid: {nx: 33, ny: 17, nz: 9}\ntime: {dt: 0.001, steps: 4}\n";
  const RunConfig a = parse_config(base, "case.yaml");
  EXPECT_TRUE(a.parallel.automatic());
  EXPECT_EQ(a.resolved_yaml.find("parallel"), std::string::npos) << "an automatic grid is not written out";
  const RunConfig b = parse_config(base + "parallel: {grid: [1, 2, 3]}\n", "case.yaml");
  EXPECT_EQ(b.parallel.grid, (std::array<int, 3>{1, 2, 3}));
  EXPECT_EQ(b.parallel.where, "case.yaml:3:18");
  EXPECT_NE(b.resolved_yaml.find("parallel: {grid: [1, 2, 3]}"), std::string::npos) << b.resolved_yaml;
  EXPECT_EQ(parse_config(b.resolved_yaml, "resolved.yaml").parallel.grid, b.parallel.grid);
  EXPECT_TRUE(parse_config(base + "parallel: {grid: auto}\n", "case.yaml").parallel.automatic());
  EXPECT_EQ(parse_config(base, "case.yaml", {"parallel.grid=[1, 1, 4]"}).parallel.grid,
            (std::array<int, 3>{1, 1, 4}));
  expect_error(base + "parallel: {grid: [2, 1, 2]}\n",
               R"(case.yaml:3:19: parallel.grid: the x axis is never split \(x lines stay on one rank\): expected \[1, Py, Pz\], got \[2, 1, 2\])");
  expect_error(base + "parallel: {grid: [1, 2]}\n", R"(case.yaml:3:18: parallel.grid: expected \[1, Py, Pz\].*got 2 values)");
  expect_error(base + "parallel: {grid: [1, 0, 2]}\n", R"(parallel.grid: expected a number of ranks >= 1, got '0')");
  expect_error(base + "parallel: {grids: auto}\n", R"(parallel.grids: unknown key 'grids' \(did you mean 'grid'\?\))");
}


// ---- materials, sources and faces (#16, #17) and partial maps (#15.2) ----------

const std::string kPhys = "grid: {nx: 9, ny: 7, nz: 5}\ntime: {dt: 0.1, steps: 2}\ninitial: {value: 20}\n";

TEST(Config, MaterialSourceAndFaces) {
  const RunConfig c = parse_config(kPhys +
                                       "material:\n"
                                       "  conductivity: {x: 2.0, y: {file: k.h5, dataset: /Ky}, z: 0.5}\n"
                                       "  heat_capacity: 3.0e6\n"
                                       "source: {power_density: {file: q.h5, dataset: /q}, table: [[0, 0], [10, 1]]}\n"
                                       "boundary:\n"
                                       "  x: {lo: {type: dirichlet, value: 300}, hi: {type: neumann, flux: -50}}\n"
                                       "  y: periodic\n"
                                       "  z_lo: {type: convective, h: 25, ambient: 290, table: [[0, 1], [5, 1.1]]}\n"
                                       "  z_hi: insulated\n",
                                   "case.yaml");
  const HeatProblem& p = c.problem;
  EXPECT_TRUE(c.material.given);
  EXPECT_EQ(p.alpha[0], 2.0);
  EXPECT_EQ(p.alpha[2], 0.5);
  EXPECT_EQ(c.material.conductivity[1].file, "k.h5");
  EXPECT_EQ(c.material.conductivity[1].dataset, "/Ky");
  EXPECT_EQ(c.material.conductivity[1].where, "case.yaml:5:29");
  EXPECT_FALSE(c.material.conductivity[0].given());
  EXPECT_EQ(p.capacity, 3.0e6);
  EXPECT_EQ(c.material.source.file, "q.h5");
  EXPECT_EQ(p.source_table.t, (std::vector<double>{0, 10}));
  EXPECT_EQ(p.lo[0], Boundary::Dirichlet);
  EXPECT_FALSE(p.lo_data[0].value_from_initial);
  EXPECT_EQ(p.lo_data[0].value, 300.0);
  EXPECT_EQ(p.hi[0], Boundary::Neumann);
  EXPECT_EQ(p.hi_data[0].flux, -50.0);
  EXPECT_TRUE(p.periodic(1));
  EXPECT_EQ(p.lo[2], Boundary::Robin);
  EXPECT_EQ(p.lo_data[2].h, 25.0);
  EXPECT_EQ(p.lo_data[2].ambient, 290.0);
  EXPECT_EQ(p.lo_data[2].table.v, (std::vector<double>{1, 1.1}));
  EXPECT_EQ(p.hi[2], Boundary::Neumann);
  EXPECT_EQ(c.initial.kind, InitialConfig::Kind::Uniform);
  EXPECT_EQ(c.initial.value, 20.0);
  // The resolved config reads back to the same problem.
  const RunConfig r = parse_config(c.resolved_yaml, "resolved.yaml");
  EXPECT_EQ(r.resolved_yaml, c.resolved_yaml);
  EXPECT_EQ(r.material.conductivity[1].dataset, "/Ky");
  EXPECT_EQ(r.problem.lo_data[2].table.t, p.lo_data[2].table.t);
  EXPECT_EQ(r.problem.hi_data[0].flux, -50.0);
  // An isotropic field and a scalar source.
  const RunConfig i = parse_config(kPhys + "material: {conductivity: {file: k.h5, dataset: /K}, heat_capacity: 1}\nsource: 5.0\n"
                                           "boundary: insulated\n", "case.yaml");
  EXPECT_TRUE(i.material.isotropic_field);
  EXPECT_EQ(i.material.conductivity[2].dataset, "/K");
  EXPECT_EQ(i.problem.source, 5.0);
  EXPECT_EQ(parse_config(i.resolved_yaml, "r.yaml").resolved_yaml, i.resolved_yaml);
}

TEST(Config, ExistingConfigsResolveAsBefore) {
  // No material, source or face data: the resolved config keeps its old keys.
  const RunConfig c = parse_config(kGood, "case.yaml");
  EXPECT_NE(c.resolved_yaml.find("diffusivity: {x: 1, y: 0.5, z: 0.25}"), std::string::npos) << c.resolved_yaml;
  EXPECT_NE(c.resolved_yaml.find("boundary: {x_lo: neumann, x_hi: neumann, y_lo: dirichlet, y_hi: neumann, z_lo: "
                                 "dirichlet, z_hi: neumann}"),
            std::string::npos)
      << c.resolved_yaml;
  EXPECT_EQ(c.resolved_yaml.find("material"), std::string::npos);
  EXPECT_EQ(c.resolved_yaml.find("source"), std::string::npos);
  EXPECT_TRUE(plan_step(c.problem).constant_tables());
}

TEST(Config, FlatAxes) {
  const RunConfig c = parse_config("grid: {nx: 9, ny: 7, nz: 1}\ntime: {dt: 0.1, steps: 2}\ninitial: {value: 1}\n"
                                   "boundary: {x: neumann, y: dirichlet}\ndiffusivity: {x: 1, y: 2}\n",
                                   "case.yaml");
  EXPECT_TRUE(c.problem.flat(2));
  EXPECT_EQ(c.resolved_yaml.find("z_lo"), std::string::npos) << c.resolved_yaml;
  EXPECT_EQ(parse_config(c.resolved_yaml, "r.yaml").resolved_yaml, c.resolved_yaml);
  expect_error("grid: {nx: 9, ny: 7, nz: 1}\ntime: {dt: 0.1, steps: 2}\ninitial: {value: 1}\n"
               "boundary: {x: neumann, y: dirichlet, z: neumann}\n",
               R"(^case\.yaml:4:41: boundary\.z: the z axis is flat \(nz = 1: a 2D or 1D problem\) and has no faces)");
  expect_error("grid: {nx: 9, ny: 7, nz: 2}\ntime: {dt: 0.1, steps: 2}\n",
               R"(grid\.nz: expected an integer >= 3 .*or 1 \(a flat axis)");
  // The analytic mode is not the solution of a 2D problem's sheet.
  expect_error("grid: {nx: 9, ny: 7, nz: 1}\ntime: {dt: 0.1, steps: 2}\n",
               R"(^case\.yaml:1:1: initial: analytic \(the default\) is the analytic solution of the constant)");
}

TEST(Config, BadPhysicsInputNamesKey) {
  const std::string g = kPhys;
  // #15.2: partial per-axis maps.
  expect_error(g + "diffusivity: {x: 1e-5}\n", R"(^case\.yaml:4:14: diffusivity: missing axis y, z: a per-axis map)");
  expect_error(g + "boundary: {x: {lo: neumann}}\n", R"(^case\.yaml:4:15: boundary\.x\.hi: missing; name both faces)");
  expect_error(g + "boundary: {x: neumann, y: neumann}\n",
               R"(^case\.yaml:4:11: boundary: missing face z_lo, z_hi: name every face)");
  expect_error(g + "material: {conductivity: {x: 1, z: 2}}\n", R"(material\.conductivity: missing axis y)");
  EXPECT_EQ(parse_config(g + "diffusivity: {x: 2, default: 1}\n", "c.yaml").problem.alpha[1], 1.0);
  EXPECT_EQ(parse_config(g + "boundary: {x: neumann, default: insulated}\n", "c.yaml").problem.hi[2],
            Boundary::Neumann);
  // Contradictions, keys of another face type, ranges, tables.
  expect_error(g + "diffusivity: 1.0\nmaterial: {conductivity: 2.0}\n",
               R"(^case\.yaml:4:14: diffusivity: contradicts material\.conductivity)");
  expect_error(g + "boundary: {x_lo: {type: neumann, value: 3}, default: dirichlet}\n",
               R"(^case\.yaml:4:34: boundary\.x_lo\.value: does not belong to a neumann face; expected one of: type, flux, table)");
  expect_error(g + "boundary: {x: {type: convective, h: -1, ambient: 0}, default: dirichlet}\n",
               R"(boundary\.x\.h: expected a heat transfer coefficient >= 0 \[W/\(m\^2 K\)\], got '-1')");
  expect_error(g + "boundary: {x: {type: convective, h: 1}, default: dirichlet}\n", R"(boundary\.x\.ambient: missing)");
  expect_error(g + "boundary: {x: convective, default: dirichlet}\n", R"(boundary\.x: a convective face needs its data)");
  expect_error(g + "boundary: {x_lo: periodic, default: dirichlet}\n",
               R"(^case\.yaml:4:18: boundary\.x_lo: periodic applies to both faces of an axis: x_lo is periodic but x_hi is dirichlet)");
  expect_error(g + "boundary: {x: dirichlet, x_lo: neumann, default: dirichlet}\n",
               R"(boundary\.x_lo: this face is also set by boundary\.x)");
  expect_error(g + "source: {power_density: 1, table: [[0, 1], [2, 3], [1, 4]]}\n",
               R"(^case\.yaml:4:53: source\.table\[2\]: expected times that increase strictly, got t = '1' after t = '2')");
  expect_error(g + "boundary: {x: {type: dirichlet, value: 1, table: [[0, 1], [0, 2]]}, default: dirichlet}\n",
               R"(boundary\.x\.table\[1\]: expected times that increase strictly)");
  expect_error(g + "material: {conductivity: 0}\n", R"(material\.conductivity: expected a conductivity > 0 \[W/\(m K\)\], got '0')");
  expect_error(g + "material: {heat_capacity: -3}\n", R"(material\.heat_capacity: expected a volumetric heat capacity > 0)");
  expect_error(g + "material: {conductivity: {file: k.h5}}\n", R"(material\.conductivity\.dataset: missing)");
  expect_error(g + "source: {table: [[0, 1]]}\n", R"(source\.power_density: missing)");
}

}  // namespace

// ---- issue #54 and #59 item 5 ------------------------------------------------------

namespace {

const std::string kSmall = "grid: {nx: 9, ny: 7, nz: 5}\ninitial: {value: 1}\n";

TEST(Config, TimeStartIsTheTimeOfStepZero) {
  const RunConfig c = parse_config(kSmall + "time: {dt: 0.5, t_end: 12, start: 10}\n", "case.yaml");
  EXPECT_EQ(c.t_start, 10.0);
  EXPECT_EQ(c.axis.t0, 10.0);
  EXPECT_EQ(c.axis.s0, 0);
  EXPECT_EQ(c.steps, 4);  // (12 - 10) / 0.5
  EXPECT_EQ(c.t_end, 12.0);
  EXPECT_EQ(c.axis.time_of(3, c.problem.dt), 11.5);
  EXPECT_NE(c.resolved_yaml.find("time: {dt: 0.5, steps: 4, start: 10}"), std::string::npos) << c.resolved_yaml;
  // The resolved config reads back to itself; without start it says nothing of it.
  EXPECT_EQ(parse_config(c.resolved_yaml, "r.yaml").resolved_yaml, c.resolved_yaml);
  EXPECT_EQ(parse_config(kSmall + "time: {dt: 0.5, steps: 3}\n", "c.yaml").resolved_yaml.find("start"),
            std::string::npos);
  expect_error(kSmall + "time: {dt: 0.5, t_end: 5, start: 10}\n",
               R"(^case\.yaml:3:\d+: time\.t_end: expected a time >= time\.start = 10 \[s\], got '5')");
}

TEST(Config, ResolveTimeOnAnotherAxis) {
  // A restart that changed dt: the steps from the axis' origin.
  RunConfig c = parse_config(kSmall + "time: {dt: 0.5, t_end: 12}\n", "case.yaml");
  c.axis = TimeAxis{8.0, 8, 1.0, ""};
  resolve_time(c);
  EXPECT_EQ(c.steps, 16);
  EXPECT_EQ(c.t_end, 12.0);
  EXPECT_EQ(c.axis.time_of(7, c.problem.dt), 7.0);  // the step before the segment: the old dt
  // t_end not a whole number of steps from the origin: dt shortened to end there.
  c.time_request.t_end = 12.2;
  resolve_time(c);
  EXPECT_EQ(c.steps, 17);
  EXPECT_EQ(c.dt_given, 0.5);
  EXPECT_DOUBLE_EQ(c.t_end, 12.2);
  c.time_request.t_end = 7;
  try {
    resolve_time(c);
    FAIL();
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("expected a time >= 8 s (the time of step 8"), std::string::npos) << e.what();
  }
}

TEST(Config, RecursiveAliasesAreRefusedOthersKept) {
  expect_error("grid: &a\n  nx: *a\n  ny: 5\n  nz: 5\ntime: {dt: 0.1, steps: 2}\n",
               R"(^case\.yaml:1:7: grid\.nx: a recursive YAML alias: the node anchored at line 1, column 7)");
  expect_error("grid: {nx: 5, ny: 5, nz: 5}\ntime: &t {dt: 0.1, steps: 2, x: [1, [*t]]}\n",
               R"(time\.x\[1\]\[0\]: a recursive YAML alias)");
  expect_error("grid: {nx: 5, ny: 5, nz: 5}\ntime: {dt: 0.1, steps: 2}\n",
               R"(^--set grid=.*: grid\.nx: a recursive YAML alias)", {"grid=&b {nx: *b, ny: 5, nz: 5}"});
  // An alias of a node outside itself is fine (and a deep chain is cheap).
  std::string chain = "a0: &a0 [1, 1]\n";
  for (int k = 1; k < 40; ++k)
    chain += "a" + std::to_string(k) + ": &a" + std::to_string(k) + " [*a" + std::to_string(k - 1) + ", *a" +
             std::to_string(k - 1) + "]\n";
  expect_error(chain, R"(unknown key 'a0')");  // reached the section check: no walk blew up
}

TEST(Config, MaterialNeedsBothItsProperties) {
  expect_error(kSmall + "time: {dt: 1, steps: 1}\nmaterial: {conductivity: 1.5}\n",
               R"(^case\.yaml:4:11: material\.heat_capacity: missing; expected the volumetric heat capacity)");
  expect_error(kSmall + "time: {dt: 1, steps: 1}\nmaterial: {heat_capacity: 4.0e6}\n",
               R"(^case\.yaml:4:11: material\.conductivity: missing; expected the conductivity K)");
  // diffusivity alone keeps c = 1.
  const RunConfig d = parse_config(kSmall + "time: {dt: 1, steps: 1}\ndiffusivity: 2.0\n", "case.yaml");
  EXPECT_EQ(d.problem.capacity, 1.0);
}

TEST(Config, FaceAndSourceDataThatOverflowAreConfigErrors) {
  const std::string t = "time: {dt: 1, steps: 1}\n";
  expect_error(kSmall + t + "boundary: {default: {type: dirichlet, value: 1e308, table: [[0, 1], [1, 10]]}}\n",
               R"(boundary\.default\.value: value x table factor = 1e\+308 x 10 = inf is not a finite float64 number)");
  expect_error(kSmall + t + "boundary: {default: {type: convective, h: 1e308, ambient: 300}}\n",
               R"(boundary\.default\.h: 2 h / h_x = 2 x 1e\+308 / 0\.125 = inf)");
  expect_error(kSmall + t + "boundary: {x: {type: neumann, flux: 1e308}, default: insulated}\n",
               R"(^case\.yaml:4:\d+: boundary\.x\.flux: 2 flux x table factor / h_x)");
  expect_error(kSmall + t + "precision: float32\nsource: {power_density: 1e38, table: [[0, 1], [5, 10]]}\n",
               R"(source\.power_density: power density x table factor = 1e\+38 x 10 = 1e\+39 is not a finite float32)");
  expect_error(kSmall + t + "boundary: {default: {type: dirichlet, table: [[0, 1], [1, 1e307]]}}\n",
               R"(boundary\.default\.table: initial\.value x table factor = 1 x 1e\+307 = 1e\+307 is not)",
               {"precision=float32"});
  // The same data in float64 are fine.
  EXPECT_NO_THROW(parse_config(kSmall + t + "source: {power_density: 1e38, table: [[0, 1], [5, 10]]}\n", "c.yaml"));
}

TEST(Config, ErrorsInsideASetTableNameTheSet) {
  expect_error(kSmall + "time: {dt: 1, steps: 1}\nsource: {power_density: 1}\n",
               R"(^--set source\.table=.*: source\.table\[2\]: expected times that increase strictly)",
               {"source.table=[[0, 0], [10, 1], [5, 2]]"});
}

TEST(Config, OutputNamesTheXdmfCannotPointAt) {
  expect_error(kSmall + "time: {dt: 1, steps: 1}\noutput: {file: 'run:1.h5'}\n",
               R"(^case\.yaml:4:16: output\.file: expected a file name without ':')");
  // In a folder name, or without the .xmf, it is fine.
  EXPECT_NO_THROW(parse_config(kSmall + "time: {dt: 1, steps: 1}\noutput: {file: 'a:b/run.h5'}\n", "c.yaml"));
  EXPECT_NO_THROW(parse_config(kSmall + "time: {dt: 1, steps: 1}\noutput: {file: 'run:1.h5', xdmf: false}\n", "c.yaml"));
}

TEST(Config, NumberWordsAreShortAndExact) {
  EXPECT_EQ(number_words(40), "40");
  EXPECT_EQ(number_words(0.0125), "0.0125");
  EXPECT_EQ(number_words(3.6e6), "3600000");
  EXPECT_EQ(number_words(1e-7), "1e-07");
  EXPECT_EQ(number_words(1e308), "1e+308");
  EXPECT_EQ(number_words(0.1 + 0.2), "0.30000000000000004");
  EXPECT_EQ(number_words(-2.5), "-2.5");
}

// ---- the problem's identity ---------------------------------------------------------

TEST(ProblemIdentity, EveryItemIsNamedAndCompared) {
  const std::string base = kSmall +
                           "time: {dt: 1, steps: 4}\nmaterial: {conductivity: 15, heat_capacity: 4e6}\n"
                           "source: {power_density: 5e4, table: [[0, 1], [40, 10]]}\n"
                           "boundary: {x: {type: convective, h: 20, ambient: 293}, default: insulated}\n";
  const auto a = problem_items(parse_config(base, "a.yaml"));
  EXPECT_EQ(first_difference(a, "checkpoint", a, "config"), "");
  // dt, steps and outputs are not the problem.
  const auto same = problem_items(parse_config(base, "b.yaml", {"time.dt=0.5", "time.steps=9", "output.file=o.h5"}));
  EXPECT_EQ(first_difference(a, "checkpoint", same, "config"), "");
  EXPECT_EQ(problem_hash(a), problem_hash(same));
  const std::pair<std::string, std::string> changes[] = {
      {"source.table=[[0, 1], [40, 20]]",
       "source.table differs: checkpoint [[0, 1], [40, 10]], config [[0, 1], [40, 20]]"},
      {"boundary.x.h=25", "boundary.x_lo.h differs: checkpoint 20, config 25"},
      {"material.heat_capacity=3e6", "material.heat_capacity differs: checkpoint 4000000, config 3000000"},
      {"scheme.theta=0.7", "scheme.theta differs: checkpoint 0.5, config 0.7"},
      {"time.start=3", "time.start differs: checkpoint 0, config 3"},
      {"domain.ly=2", "domain.ly differs: checkpoint 1, config 2"},
  };
  for (const auto& [set, words] : changes) {
    const auto b = problem_items(parse_config(base, "b.yaml", {set}));
    EXPECT_EQ(first_difference(a, "checkpoint", b, "config"), words) << set;
    EXPECT_NE(problem_hash(a), problem_hash(b)) << set;
  }
  // Stored as text and read back.
  EXPECT_EQ(first_difference(parse_problem_items(problem_items_text(a)), "checkpoint", a, "config"), "");
  // diffusivity: alpha is material {conductivity: alpha, heat_capacity: 1}, said in the config's words.
  const auto d1 = problem_items(parse_config(kSmall + "time: {dt: 1, steps: 1}\ndiffusivity: 2\n", "d.yaml"));
  const auto d2 = problem_items(parse_config(kSmall + "time: {dt: 1, steps: 1}\ndiffusivity: 3\n", "d.yaml"));
  EXPECT_EQ(first_difference(d1, "checkpoint", d2, "config"), "diffusivity.x differs: checkpoint 2, config 3");
}

TEST(ProblemIdentity, ItemsOlderFilesLackCompareAsTheirLegacyValue) {
  const auto now = problem_items(parse_config(kSmall + "time: {dt: 1, steps: 1}\n", "a.yaml"));
  std::vector<ProblemItem> older;
  for (const auto& it : now)
    if (it.key != "time.start") older.push_back(it);
  EXPECT_EQ(first_difference(older, "checkpoint", now, "config"), "");  // time.start: legacy 0
  const auto later = problem_items(parse_config(kSmall + "time: {dt: 1, steps: 1, start: 4}\n", "a.yaml"));
  EXPECT_EQ(first_difference(older, "checkpoint", later, "config"), "time.start differs: checkpoint 0, config 4");
}

}  // namespace

// diagnostics: {heat_flows, csv} (#55 item 2): off by default and absent
// from the resolved config; csv true or a name, read back by to_yaml.
TEST(Config, DiagnosticsHeatFlows) {
  const RunConfig off = parse_config(kGood, "case.yaml");
  EXPECT_FALSE(off.diagnostics.heat_flows);
  EXPECT_EQ(off.resolved_yaml.find("diagnostics"), std::string::npos);
  const RunConfig on = parse_config(std::string(kGood) + "diagnostics: {heat_flows: true, csv: True}\n", "case.yaml");
  EXPECT_TRUE(on.diagnostics.heat_flows && on.diagnostics.csv && on.diagnostics.csv_file.empty());
  const RunConfig named = parse_config(kGood, "case.yaml", {"diagnostics.heat_flows=true", "diagnostics.csv=flows.csv"});
  EXPECT_EQ(named.diagnostics.csv_file, "flows.csv");
  const RunConfig again = parse_config(named.resolved_yaml, "resolved.yaml");
  EXPECT_TRUE(again.diagnostics.heat_flows);
  EXPECT_EQ(again.diagnostics.csv_file, "flows.csv");
  expect_error(std::string(kGood) + "diagnostics: {csv: true}\n",
               R"(case.yaml:9:\d+: diagnostics.csv: writes the heat flows, which are off)");
  expect_error(std::string(kGood) + "diagnostics: {heat_flow: true}\n", R"(diagnostics.*heat_flow)");
  expect_error(std::string(kGood) + "diagnostics: {heat_flows: 3}\n", R"(diagnostics.heat_flows: expected true or false)");
}
