// Tests for the input-deck layer: ProblemSpec (reading), Schema (validation) and
// the core deck schema. Every error test pins the line and column, because
// pointing the user at the right place is the point of the layer.
#include <gtest/gtest.h>

#include "Core/ProblemSpec/DeckSchema.h"
#include "Core/ProblemSpec/ProblemSpec.h"
#include "Core/ProblemSpec/Schema.h"
#include "Core/ProblemSpec/YamlExpansion.h"

#include <filesystem>
#include <string>

using tessera::DeckError;
using tessera::IntVector;
using tessera::ProblemSpec;
using tessera::Schema;
using tessera::ValueType;
using tessera::Vector3;

namespace {

std::string sourceDir() {
#ifdef TESSERA_SOURCE_DIR
  return TESSERA_SOURCE_DIR;
#else
  // tests/Core/test_ProblemSpec.cc -> repository root
  return std::filesystem::path(__FILE__).parent_path().parent_path().parent_path().string();
#endif
}

std::string minimalDeckPath() {
  return sourceDir() + "/inputs/examples/minimal.yaml";
}

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

// Runs `f`, which must throw a DeckError, and returns it for inspection.
template <class F>
DeckError deckErrorFrom(F&& f) {
  try {
    f();
  } catch (const DeckError& e) {
    return e;
  }
  ADD_FAILURE() << "expected a DeckError";
  return DeckError("", 0, 0, "", "no error thrown");
}

const char* const kTypesDeck =
    "meta:\n"                                // 1
    "  title: \"Getter test: all types\"\n"  // 2
    "ints:\n"                                // 3
    "  count: 42\n"                          // 4
    "  negative: -7\n"                       // 5
    "  plus: +3\n"                           // 6
    "numbers:\n"                             // 7
    "  one: 1\n"                             // 8
    "  half: 1.5\n"                          // 9
    "  small: 1e-3\n"                        // 10
    "  big: -2.5E+2\n"                       // 11
    "flags:\n"                               // 12
    "  enabled: true\n"                      // 13
    "  disabled: false\n"                    // 14
    "vectors:\n"                             // 15
    "  cells: [16, 8, 4]\n"                  // 16
    "  lower: [0, -0.5, 1e2]\n"              // 17
    "  periodic: [true, false, true]\n"      // 18
    "  save:\n"                              // 19
    "    - u\n"                              // 20
    "    - v\n"                              // 21
    "  none: []\n";                          // 22

// A deck for the core schema; tests break one line of it at a time.
std::string coreDeck(const std::string& levelExtra = "", const std::string& patches = "[2, 2, 1]") {
  const std::string head =
      "component:\n"                  // 1
      "  name: burgers\n"             // 2
      "time:\n"                       // 3
      "  max_time: 1.0\n"             // 4
      "grid:\n"                       // 5
      "  level:\n"                    // 6
      "    lower: [0, 0, 0]\n"        // 7
      "    upper: [1, 1, 1]\n"        // 8
      "    resolution: [8, 8, 8]\n";  // 9
  // Line 10 holds the patches, line 11 onwards `levelExtra`.
  return head + "    patches: " + patches + "\n" + levelExtra + "burgers:\n  viscosity: 0.01\n";
}

Schema coreWithBurgers() {
  Schema schema = tessera::coreDeckSchema();
  schema.anySection("burgers");
  return schema;
}

}  // namespace

// ---------------------------------------------------------------- getters

TEST(ProblemSpec, ReadsEveryValueType) {
  const ProblemSpec deck = ProblemSpec::fromString(kTypesDeck, "types.yaml");
  EXPECT_EQ(deck.section("meta").get<std::string>("title"), "Getter test: all types");

  const ProblemSpec ints = deck.section("ints");
  EXPECT_EQ(ints.get<int>("count"), 42);
  EXPECT_EQ(ints.get<int>("negative"), -7);
  EXPECT_EQ(ints.get<int>("plus"), 3);

  const ProblemSpec numbers = deck.section("numbers");
  EXPECT_DOUBLE_EQ(numbers.get<double>("one"), 1.0);
  EXPECT_DOUBLE_EQ(numbers.get<double>("half"), 1.5);
  EXPECT_DOUBLE_EQ(numbers.get<double>("small"), 1e-3);
  EXPECT_DOUBLE_EQ(numbers.get<double>("big"), -250.0);

  const ProblemSpec flags = deck.section("flags");
  EXPECT_TRUE(flags.get<bool>("enabled"));
  EXPECT_FALSE(flags.get<bool>("disabled"));

  const ProblemSpec vectors = deck.section("vectors");
  EXPECT_EQ(vectors.get<IntVector>("cells"), IntVector(16, 8, 4));
  EXPECT_EQ(vectors.get<Vector3>("lower"), Vector3(0.0, -0.5, 100.0));
  EXPECT_EQ((vectors.get<std::array<bool, 3>>("periodic")),
            (std::array<bool, 3>{true, false, true}));
  EXPECT_EQ(vectors.get<std::vector<std::string>>("save"), (std::vector<std::string>{"u", "v"}));
  EXPECT_TRUE(vectors.get<std::vector<std::string>>("none").empty());
  // Any scalar reads as a string: the text as written.
  EXPECT_EQ(numbers.get<std::string>("small"), "1e-3");
}

TEST(ProblemSpec, FallbacksApplyOnlyToAbsentKeys) {
  const ProblemSpec deck = ProblemSpec::fromString(kTypesDeck);
  const ProblemSpec ints = deck.section("ints");
  EXPECT_EQ(ints.get<int>("missing", 5), 5);
  EXPECT_EQ(ints.get<int>("count", 5), 42);
  EXPECT_DOUBLE_EQ(ints.get<double>("missing", 2.5), 2.5);
  EXPECT_TRUE(ints.get<bool>("missing", true));
  EXPECT_EQ(ints.get<std::string>("missing", "x"), "x");
  EXPECT_EQ(ints.get<IntVector>("missing", IntVector(1, 2, 3)), IntVector(1, 2, 3));
  EXPECT_EQ(ints.get<Vector3>("missing", Vector3(1, 2, 3)), Vector3(1, 2, 3));
  EXPECT_EQ((ints.get<std::array<bool, 3>>("missing", {false, true, false})),
            (std::array<bool, 3>{false, true, false}));
  EXPECT_EQ(ints.get<std::vector<std::string>>("missing", {"a"}), std::vector<std::string>{"a"});
  // A present but malformed value is an error even with a fallback.
  const DeckError e = deckErrorFrom([&] { deck.section("flags").get<int>("enabled", 3); });
  EXPECT_EQ(e.line(), 13);
  EXPECT_EQ(e.keyPath(), "flags.enabled");
}

TEST(ProblemSpec, NestedSectionsKnowTheirPathAndPlace) {
  const ProblemSpec deck = ProblemSpec::fromString(coreDeck(), "deck.yaml");
  EXPECT_EQ(deck.path(), "");
  EXPECT_EQ(deck.file(), "deck.yaml");
  EXPECT_EQ(deck.keys(), (std::vector<std::string>{"component", "time", "grid", "burgers"}));
  const ProblemSpec level = deck.section("grid").section("level");
  EXPECT_EQ(level.path(), "grid.level");
  EXPECT_EQ(level.line(), 6);
  EXPECT_EQ(level.column(), 3);
  EXPECT_EQ(level.file(), "deck.yaml");
  EXPECT_EQ(level.keys(), (std::vector<std::string>{"lower", "upper", "resolution", "patches"}));
  EXPECT_TRUE(level.has("patches"));
  EXPECT_FALSE(level.has("periodic"));
  EXPECT_EQ(level.childPath("patches"), "grid.level.patches");
  EXPECT_FALSE(deck.findSection("scheduler").has_value());
  ASSERT_TRUE(deck.findSection("time").has_value());
  EXPECT_EQ(deck.findSection("time")->path(), "time");
}

TEST(ProblemSpec, KeyWithoutValueIsAnEmptySection) {
  const ProblemSpec deck = ProblemSpec::fromString("meta:\ntime:\n  max_time: 1\n");
  const ProblemSpec meta = deck.section("meta");
  EXPECT_TRUE(meta.keys().empty());
  EXPECT_EQ(meta.get<std::string>("title", "untitled"), "untitled");
}

TEST(ProblemSpec, EmptyDeckIsAnEmptyRoot) {
  const ProblemSpec deck = ProblemSpec::fromString("# nothing yet\n");
  EXPECT_TRUE(deck.keys().empty());
  EXPECT_EQ(deck.line(), 1);
}

// ---------------------------------------------------------------- reading errors

TEST(ProblemSpecErrors, IntRejectsFractionsAndWords) {
  const ProblemSpec time = ProblemSpec::fromString(
                               "time:\n"
                               "  max_timesteps: 1.5\n"
                               "  count: abc\n"
                               "  hex: 0x10\n",
                               "t.yaml")
                               .section("time");
  const DeckError fraction = deckErrorFrom([&] { time.get<int>("max_timesteps"); });
  EXPECT_EQ(fraction.file(), "t.yaml");
  EXPECT_EQ(fraction.line(), 2);
  EXPECT_EQ(fraction.column(), 18);
  EXPECT_EQ(fraction.keyPath(), "time.max_timesteps");
  EXPECT_STREQ(fraction.what(), "t.yaml:2:18: time.max_timesteps: expected an integer, got '1.5'");

  const DeckError word = deckErrorFrom([&] { time.get<int>("count"); });
  EXPECT_EQ(word.line(), 3);
  EXPECT_EQ(word.column(), 10);
  EXPECT_PRED2(contains, word.what(), "got 'abc'");
  EXPECT_THROW(time.get<int>("hex"), DeckError);
}

TEST(ProblemSpecErrors, DoubleAndBoolAreStrict) {
  const ProblemSpec s = ProblemSpec::fromString(
      "a: abc\n"
      "b: .inf\n"
      "c: yes\n"
      "d: 1\n"
      "e: nan\n");
  const DeckError word = deckErrorFrom([&] { s.get<double>("a"); });
  EXPECT_EQ(word.line(), 1);
  EXPECT_EQ(word.column(), 4);
  EXPECT_PRED2(contains, word.what(), "expected a number, got 'abc'");
  EXPECT_THROW(s.get<double>("b"), DeckError);
  EXPECT_THROW(s.get<double>("e"), DeckError);
  const DeckError yes = deckErrorFrom([&] { s.get<bool>("c"); });
  EXPECT_EQ(yes.line(), 3);
  EXPECT_PRED2(contains, yes.what(), "expected true or false, got 'yes'");
  EXPECT_THROW(s.get<bool>("d"), DeckError);
}

TEST(ProblemSpecErrors, VectorsNeedExactlyThreeItems) {
  const ProblemSpec level = ProblemSpec::fromString(
                                "grid:\n"
                                "  level:\n"
                                "    patches: abc\n"
                                "    resolution: [16, 16]\n"
                                "    lower: [0, 0, x]\n"
                                "    periodic: [true, 1, false]\n"
                                "    save: {a: 1}\n"
                                "    upper:\n"
                                "      - 1\n"
                                "      - 2\n",
                                "burgers.yaml")
                                .section("grid")
                                .section("level");
  const DeckError text = deckErrorFrom([&] { level.get<IntVector>("patches"); });
  EXPECT_STREQ(text.what(),
               "burgers.yaml:3:14: grid.level.patches: expected a list of 3 integers, got 'abc'");
  const DeckError shortList = deckErrorFrom([&] { level.get<IntVector>("resolution"); });
  EXPECT_EQ(shortList.line(), 4);
  EXPECT_EQ(shortList.column(), 17);
  EXPECT_PRED2(contains, shortList.what(), "got '[16, 16]'");
  const DeckError item = deckErrorFrom([&] { level.get<Vector3>("lower"); });
  EXPECT_EQ(item.line(), 5);
  EXPECT_PRED2(contains, item.what(), "expected a list of 3 numbers");
  EXPECT_THROW((level.get<std::array<bool, 3>>("periodic")), DeckError);
  const DeckError map = deckErrorFrom([&] { level.get<std::vector<std::string>>("save"); });
  EXPECT_PRED2(contains, map.what(), "expected a list of strings, got '{a: 1}'");
  // A block sequence is located at its first item.
  const DeckError block = deckErrorFrom([&] { level.get<Vector3>("upper"); });
  EXPECT_EQ(block.line(), 9);
  EXPECT_EQ(block.column(), 7);
}

TEST(ProblemSpecErrors, MissingKeyPointsAtItsSection) {
  const ProblemSpec deck = ProblemSpec::fromString(coreDeck(), "deck.yaml");
  const ProblemSpec level = deck.section("grid").section("level");
  const DeckError e = deckErrorFrom([&] { level.get<int>("cycle"); });
  EXPECT_EQ(e.line(), 6);
  EXPECT_EQ(e.column(), 3);
  EXPECT_EQ(e.keyPath(), "grid.level.cycle");
  EXPECT_STREQ(e.what(), "deck.yaml:6:3: grid.level.cycle: missing required key");

  const DeckError section = deckErrorFrom([&] { deck.section("scheduler"); });
  EXPECT_EQ(section.line(), 1);
  EXPECT_EQ(section.keyPath(), "scheduler");
  EXPECT_PRED2(contains, section.what(), "missing required section");
}

TEST(ProblemSpecErrors, SectionMustBeAMap) {
  const ProblemSpec deck = ProblemSpec::fromString("time: 5\ngrid: [1, 2]\n");
  const DeckError e = deckErrorFrom([&] { deck.section("time"); });
  EXPECT_EQ(e.line(), 1);
  EXPECT_EQ(e.column(), 7);
  EXPECT_PRED2(contains, e.what(), "expected a section (a map of keys), got '5'");
  EXPECT_THROW(deck.findSection("grid"), DeckError);
}

TEST(ProblemSpecErrors, EmptyValueIsNotAValue) {
  const ProblemSpec deck = ProblemSpec::fromString("time:\n  max_time:\n");
  const DeckError e = deckErrorFrom([&] { deck.section("time").get<double>("max_time"); });
  EXPECT_EQ(e.line(), 2);
  EXPECT_EQ(e.column(), 3);
  EXPECT_PRED2(contains, e.what(), "expected a number, got an empty value");
}

TEST(ProblemSpecErrors, MalformedYamlReportsLineAndColumn) {
  const DeckError e = deckErrorFrom([] {
    ProblemSpec::fromString(
        "time:\n"
        "  max_time: 1\n"
        "grid:\n"
        "  level:\n"
        "    resolution: [16, 16\n"
        "    patches: [1, 1, 1]\n",
        "broken.yaml");
  });
  EXPECT_EQ(e.file(), "broken.yaml");
  // yaml-cpp notices the unclosed '[' when the next line's key turns up.
  EXPECT_EQ(e.line(), 6);
  EXPECT_EQ(e.column(), 12);
  EXPECT_EQ(e.keyPath(), "");
  EXPECT_PRED2(contains, e.what(), "broken.yaml:6:12: invalid YAML:");
}

TEST(ProblemSpecErrors, DuplicateKeysAreRejected) {
  const DeckError e = deckErrorFrom([] {
    ProblemSpec::fromString(
        "time:\n"
        "  max_time: 1\n"
        "  max_time: 2\n");
  });
  EXPECT_EQ(e.line(), 3);
  EXPECT_EQ(e.column(), 3);
  EXPECT_EQ(e.keyPath(), "time.max_time");
  EXPECT_PRED2(contains, e.what(), "duplicate key 'max_time' (first given at line 2)");
}

TEST(ProblemSpecErrors, DeckMustBeAMap) {
  const DeckError e = deckErrorFrom([] { ProblemSpec::fromString("- a\n- b\n"); });
  EXPECT_EQ(e.line(), 1);
  EXPECT_PRED2(contains, e.what(), "a deck must be a map of sections");
}

TEST(ProblemSpecErrors, MissingFileNamesThePath) {
  const std::string path = "/nonexistent/tessera/deck.yaml";
  try {
    ProblemSpec::fromFile(path);
    FAIL() << "expected an InputError";
  } catch (const DeckError&) {
    FAIL() << "a missing file has no line to point at";
  } catch (const tessera::InputError& e) {
    EXPECT_PRED2(contains, e.what(), path);
  }
}

TEST(ProblemSpecErrors, LayersAboveCanRaiseLocatedErrors) {
  const ProblemSpec level =
      ProblemSpec::fromString(coreDeck(), "deck.yaml").section("grid").section("level");
  const DeckError atValue = level.errorAtValue("upper", "upper must exceed lower");
  EXPECT_EQ(atValue.line(), 8);
  EXPECT_EQ(atValue.column(), 12);
  EXPECT_EQ(atValue.keyPath(), "grid.level.upper");
  const DeckError atKey = level.errorAtKey("upper", "x");
  EXPECT_EQ(atKey.column(), 5);
  const DeckError here = level.errorHere("x");
  EXPECT_EQ(here.line(), 6);
  EXPECT_EQ(here.keyPath(), "grid.level");
}

// ---------------------------------------------------------------- files, YAML out, overrides

TEST(ProblemSpec, FromFileReadsTheExampleDeck) {
  const ProblemSpec deck = ProblemSpec::fromFile(minimalDeckPath());
  EXPECT_EQ(deck.file(), minimalDeckPath());
  EXPECT_EQ(deck.section("component").get<std::string>("name"), "burgers");
  EXPECT_EQ(deck.section("grid").section("level").get<IntVector>("resolution"),
            IntVector::uniform(16));
}

TEST(ProblemSpec, ToYamlRoundTrips) {
  const ProblemSpec deck = ProblemSpec::fromString(kTypesDeck);
  const ProblemSpec copy = ProblemSpec::fromString(deck.toYaml());
  EXPECT_EQ(copy.keys(), deck.keys());
  EXPECT_EQ(copy.section("meta").get<std::string>("title"), "Getter test: all types");
  EXPECT_EQ(copy.section("vectors").get<IntVector>("cells"), IntVector(16, 8, 4));
  EXPECT_DOUBLE_EQ(copy.section("numbers").get<double>("small"), 1e-3);
  const ProblemSpec vectors = ProblemSpec::fromString(deck.section("vectors").toYaml());
  EXPECT_EQ(vectors.get<std::vector<std::string>>("save"), (std::vector<std::string>{"u", "v"}));
}

TEST(ProblemSpec, WithOverrideClonesTheDeck) {
  const ProblemSpec original = ProblemSpec::fromString(coreDeck(), "deck.yaml");
  const ProblemSpec changed = original.withOverride("grid.level.patches", "[1, 2, 2]")
                                  .withOverride("time.max_timesteps", "10")
                                  .withOverride("scheduler.type", "async");
  EXPECT_EQ(changed.section("grid").section("level").get<IntVector>("patches"), IntVector(1, 2, 2));
  EXPECT_EQ(changed.section("time").get<int>("max_timesteps"), 10);
  EXPECT_EQ(changed.section("scheduler").get<std::string>("type"), "async");
  // The original is untouched.
  EXPECT_EQ(original.section("grid").section("level").get<IntVector>("patches"),
            IntVector(2, 2, 1));
  EXPECT_FALSE(original.section("time").has("max_timesteps"));
  EXPECT_FALSE(original.has("scheduler"));
  // Untouched parts keep their place in the file.
  EXPECT_EQ(changed.section("grid").section("level").line(), 6);
  EXPECT_EQ(changed.file(), "deck.yaml");
}

TEST(ProblemSpec, OverrideErrorsNameTheOverride) {
  const ProblemSpec deck =
      ProblemSpec::fromString(coreDeck(), "deck.yaml").withOverride("time.max_timesteps", "abc");
  const DeckError e = deckErrorFrom([&] { deck.section("time").get<int>("max_timesteps"); });
  EXPECT_EQ(e.line(), 0);
  EXPECT_EQ(e.keyPath(), "time.max_timesteps");
  EXPECT_STREQ(e.what(),
               "deck.yaml: time.max_timesteps: expected an integer, got 'abc' "
               "(from override time.max_timesteps=abc)");
  EXPECT_THROW(deck.withOverride("time.max_time.x", "1"), tessera::InputError);
  EXPECT_THROW(deck.withOverride("time..x", "1"), tessera::InputError);
  EXPECT_THROW(deck.withOverride("time.x", "[1, 2"), tessera::InputError);
}

// ---------------------------------------------------------------- Schema

namespace {

Schema levelSchemaForTests() {
  return Schema("level")
      .required("resolution", ValueType::IntVector)
      .range("resolution", 1)
      .optional("patches", ValueType::IntVector)
      .range("patches", 1)
      .optional("scheduler", ValueType::String)
      .oneOf("scheduler", {"host", "sync", "async"})
      .optional("dt", ValueType::Double)
      .greaterThan("dt", 0);
}

}  // namespace

TEST(Schema, UnknownKeySuggestsTheClosestName) {
  const ProblemSpec level = ProblemSpec::fromString(
                                "level:\n"
                                "  resolutoin: [16, 16, 16]\n",
                                "s.yaml")
                                .section("level");
  const std::vector<DeckError> errors = levelSchemaForTests().collectErrors(level);
  // The misspelling stands for the missing 'resolution': one error, not two.
  ASSERT_EQ(errors.size(), 1u);
  const DeckError& unknown = errors[0];
  EXPECT_EQ(unknown.line(), 2);
  EXPECT_EQ(unknown.column(), 3);
  EXPECT_EQ(unknown.keyPath(), "level.resolutoin");
  EXPECT_PRED2(contains, unknown.what(),
               "unknown key 'resolutoin' in section 'level'; did you mean 'resolution'?");
}

TEST(Schema, UnknownKeyFarFromAnyListsTheValidKeys) {
  const ProblemSpec spec = ProblemSpec::fromString("resolution: [1, 1, 1]\nbananas: 3\n");
  const DeckError e = deckErrorFrom([&] { levelSchemaForTests().validate(spec); });
  EXPECT_EQ(e.line(), 2);
  EXPECT_PRED2(contains, e.what(),
               "unknown key 'bananas' at the top level; valid keys are: "
               "resolution, patches, scheduler, dt");
}

TEST(Schema, ReportsTypeRangeAndChoiceErrorsAtTheValue) {
  const ProblemSpec spec = ProblemSpec::fromString(
      "resolution: [16, 16, 16]\n"
      "patches: [0, 1, 1]\n"
      "scheduler: fast\n"
      "dt: 0\n");
  const std::vector<DeckError> errors = levelSchemaForTests().collectErrors(spec);
  ASSERT_EQ(errors.size(), 3u);
  EXPECT_EQ(errors[0].line(), 2);
  EXPECT_EQ(errors[0].column(), 10);
  EXPECT_PRED2(contains, errors[0].what(), "out of range: [0, 1, 1] (each component must be >= 1)");
  EXPECT_EQ(errors[1].line(), 3);
  EXPECT_EQ(errors[1].column(), 12);
  EXPECT_PRED2(contains, errors[1].what(), "expected one of host, sync, async; got 'fast'");
  EXPECT_EQ(errors[2].line(), 4);
  EXPECT_PRED2(contains, errors[2].what(), "out of range: 0 (must be > 0)");

  const ProblemSpec wrongType = ProblemSpec::fromString("resolution: 16\n");
  const DeckError e = deckErrorFrom([&] { levelSchemaForTests().validate(wrongType); });
  EXPECT_EQ(e.line(), 1);
  EXPECT_EQ(e.column(), 13);
  EXPECT_PRED2(contains, e.what(), "expected a list of 3 integers, got '16'");
}

TEST(Schema, CollectsErrorsFromNestedSectionsInFileOrder) {
  const Schema schema = Schema()
                            .section("grid", Schema().section("level", levelSchemaForTests()))
                            .section("time", Schema().required("max_time", ValueType::Double), true)
                            .optional("title", ValueType::String);
  const ProblemSpec spec = ProblemSpec::fromString(
      "title: [not, a, string]\n"  // 1: type error
      "grid:\n"                    // 2
      "  level:\n"                 // 3: missing resolution
      "    patches: [1, 1, x]\n"   // 4: type error
      "    sheduler: host\n"       // 5: unknown, did you mean
      "time:\n"                    // 6
      "  max_tim: 1\n",            // 7: unknown, did you mean (stands for the missing max_time)
      "n.yaml");
  const std::vector<DeckError> errors = schema.collectErrors(spec);
  ASSERT_EQ(errors.size(), 5u);
  const std::vector<int> lines = {1, 3, 4, 5, 7};
  for (std::size_t i = 0; i < errors.size(); ++i) {
    EXPECT_EQ(errors[i].line(), lines[i]) << errors[i].what();
  }
  EXPECT_EQ(errors[1].keyPath(), "grid.level.resolution");
  EXPECT_EQ(errors[3].keyPath(), "grid.level.sheduler");
  EXPECT_PRED2(contains, errors[3].what(), "did you mean 'scheduler'?");
  EXPECT_EQ(errors[4].keyPath(), "time.max_tim");
  EXPECT_PRED2(contains, errors[4].what(), "did you mean 'max_time'?");

  // validate() throws the first of them.
  const DeckError first = deckErrorFrom([&] { schema.validate(spec); });
  EXPECT_EQ(first.line(), 1);
  EXPECT_EQ(first.keyPath(), "title");
}

TEST(Schema, MissingRequiredSectionIsReportedAtTheParent) {
  const Schema schema = Schema().section("time", Schema(), true).anySection("burgers", true);
  const std::vector<DeckError> errors = schema.collectErrors(ProblemSpec::fromString("{}"));
  ASSERT_EQ(errors.size(), 2u);
  EXPECT_EQ(errors[0].keyPath(), "time");
  EXPECT_PRED2(contains, errors[0].what(), "missing required section");
  EXPECT_EQ(errors[1].keyPath(), "burgers");
}

TEST(Schema, ProgrammingMistakesAreNotDeckErrors) {
  Schema schema;
  schema.optional("a", ValueType::String);
  EXPECT_THROW(schema.optional("a", ValueType::Int), tessera::Error);
  EXPECT_THROW(schema.range("b", 0, 1), tessera::Error);
  EXPECT_THROW(schema.range("a", 0, 1), tessera::Error);
  EXPECT_THROW(schema.child("a"), tessera::Error);
  EXPECT_TRUE(schema.hasKey("a"));
  EXPECT_FALSE(schema.hasKey("b"));
}

// ---------------------------------------------------------------- the core deck schema

TEST(DeckSchema, AcceptsTheMinimalExample) {
  const ProblemSpec deck = ProblemSpec::fromFile(minimalDeckPath());
  const std::vector<DeckError> errors = coreWithBurgers().collectErrors(deck);
  for (const DeckError& e : errors)
    ADD_FAILURE() << e.what();
  EXPECT_NO_THROW(coreWithBurgers().validate(ProblemSpec::fromString(coreDeck())));
}

TEST(DeckSchema, ComponentSectionMustBeDeclaredByTheCaller) {
  const DeckError e = deckErrorFrom(
      [] { tessera::coreDeckSchema().validate(ProblemSpec::fromString(coreDeck())); });
  EXPECT_EQ(e.line(), 11);
  EXPECT_EQ(e.keyPath(), "burgers");
  // With a real schema for the component its keys are checked too.
  Schema schema = tessera::coreDeckSchema();
  schema.section("burgers",
                 Schema().required("viscosity", ValueType::Double).range("viscosity", 0));
  EXPECT_NO_THROW(schema.validate(ProblemSpec::fromString(coreDeck())));
  const DeckError bad = deckErrorFrom([&] {
    schema.validate(ProblemSpec::fromString(coreDeck()).withOverride("burgers.viscosity", "-1"));
  });
  EXPECT_EQ(bad.keyPath(), "burgers.viscosity");
  EXPECT_PRED2(contains, bad.what(), "(from override burgers.viscosity=-1)");
}

TEST(DeckSchema, RejectsUnknownKeyInLevel) {
  const ProblemSpec deck =
      ProblemSpec::fromString(coreDeck("    resolutoin: [4, 4, 4]\n"), "deck.yaml");
  const DeckError e = deckErrorFrom([&] { coreWithBurgers().validate(deck); });
  EXPECT_EQ(e.line(), 11);
  EXPECT_EQ(e.column(), 5);
  EXPECT_EQ(e.keyPath(), "grid.level.resolutoin");
  EXPECT_STREQ(e.what(),
               "deck.yaml:11:5: grid.level.resolutoin: unknown key 'resolutoin' in section "
               "'grid.level'; did you mean 'resolution'?");
}

TEST(DeckSchema, RejectsPatchesOutOfRange) {
  const ProblemSpec deck = ProblemSpec::fromString(coreDeck("", "[0, 1, 1]"), "deck.yaml");
  const DeckError e = deckErrorFrom([&] { coreWithBurgers().validate(deck); });
  EXPECT_EQ(e.line(), 10);
  EXPECT_EQ(e.column(), 14);
  EXPECT_EQ(e.keyPath(), "grid.level.patches");
  EXPECT_PRED2(contains, e.what(), "out of range: [0, 1, 1]");
}

TEST(DeckSchema, RejectsWrongTypes) {
  const ProblemSpec deck = ProblemSpec::fromString(coreDeck("    periodic: [yes, no, yes]\n"));
  const DeckError e = deckErrorFrom([&] { coreWithBurgers().validate(deck); });
  EXPECT_EQ(e.line(), 11);
  EXPECT_EQ(e.column(), 15);
  EXPECT_PRED2(contains, e.what(), "expected a list of 3 booleans");

  const ProblemSpec extra = ProblemSpec::fromString(coreDeck("    extra_cells: [1, 9, 1]\n"));
  EXPECT_PRED2(contains, deckErrorFrom([&] { coreWithBurgers().validate(extra); }).what(),
               "each component must be in [0, 8]");
}

TEST(DeckSchema, ChecksTimeAndSchedulerLimits) {
  const ProblemSpec base = ProblemSpec::fromString(coreDeck());
  const Schema schema = coreWithBurgers();
  EXPECT_NO_THROW(schema.validate(base.withOverride("scheduler.tile", "auto")));
  EXPECT_NO_THROW(schema.validate(base.withOverride("scheduler.tile", "[8, 8, 1]")));
  EXPECT_PRED2(contains, deckErrorFrom([&] {
                           schema.validate(base.withOverride("scheduler.tile", "big"));
                         }).what(),
               "expected 'auto' or a list of 3 integers, got 'big'");
  EXPECT_THROW(schema.validate(base.withOverride("scheduler.tile", "[0, 8, 8]")), DeckError);
  EXPECT_THROW(schema.validate(base.withOverride("scheduler.type", "fast")), DeckError);
  EXPECT_THROW(schema.validate(base.withOverride("scheduler.scratchpad_bytes", "32")), DeckError);
  EXPECT_THROW(schema.validate(base.withOverride("time.delt_init", "0")), DeckError);
  EXPECT_THROW(schema.validate(base.withOverride("time.timestep_multiplier", "2e6")), DeckError);
  EXPECT_NO_THROW(schema.validate(base.withOverride("time.timestep_multiplier", "1e6")));
  EXPECT_THROW(schema.validate(base.withOverride("time.max_time", "-1")), DeckError);
  EXPECT_THROW(schema.validate(base.withOverride("load_balancer.curve", "peano")), DeckError);
  EXPECT_NO_THROW(schema.validate(base.withOverride("output.save", "[u, v]")));
  EXPECT_THROW(schema.validate(base.withOverride("checkpoint.cycle", "0")), DeckError);
  const DeckError missing = deckErrorFrom(
      [&] { schema.validate(ProblemSpec::fromString("component: {name: burgers}\n")); });
  EXPECT_EQ(missing.keyPath(), "time");
}

namespace tessera {
namespace {

// Aliases count as often as they are used, each anchor's size once known:
// root map 1 + 'a' 1 + [1, 2] 3 + 'b' 1 + [*x, *x] 1 + 3 + 3 = 13 nodes.
TEST(YamlExpansion, AliasesCountAsOftenAsTheyAreUsed) {
  const std::string text = "a: &x [1, 2]\nb: [*x, *x]\n";
  EXPECT_NO_THROW(requireBoundedExpansion(text, "deck.yaml", 13));
  try {
    requireBoundedExpansion(text, "deck.yaml", 12);
    ADD_FAILURE() << "13 nodes passed a bound of 12";
  } catch (const DeckError& e) {
    EXPECT_EQ(e.line(), 2);
    EXPECT_NE(std::string(e.what()).find("more than 12 nodes"), std::string::npos) << e.what();
  }
}

// Nine levels of nine: refused at once, with a file:line, not walked.
TEST(YamlExpansion, BillionLaughsIsRefusedAtTheAliasThatPassesTheBound) {
  std::string text = "l0: &a0 [x, x, x, x, x, x, x, x, x]\n";
  for (int level = 1; level < 10; ++level) {
    text += "l" + std::to_string(level) + ": &a" + std::to_string(level) + " [";
    for (int i = 0; i < 9; ++i)
      text += (i ? ", *a" : "*a") + std::to_string(level - 1);
    text += "]\n";
  }
  try {
    ProblemSpec::fromString(text, "laughs.yaml");
    ADD_FAILURE() << "the deck was accepted";
  } catch (const DeckError& e) {
    EXPECT_EQ(e.line(), 6);  // l4 expands to about 9^5 nodes, l5 to 9^6 > 100000
    EXPECT_NE(std::string(e.what()).find("laughs.yaml:6:"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace tessera
