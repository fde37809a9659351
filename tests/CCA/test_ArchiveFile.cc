// Round trip of every variable type through an archive file, across patch
// layouts and rank counts, and the checks that catch damaged files.
#include "CCA/Components/DataArchiver/ArchiveFile.h"
#include "Core/Grid/Grid.h"
#include "Core/Grid/Variables/CCVariable.h"
#include "Core/Grid/Variables/ReductionVariable.h"
#include "Core/Parallel/Communicator.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>

using namespace tessera;

namespace {

LevelSpec spec(IntVector patches) {
  LevelSpec s;
  s.lower = {0.0, -1.0, 2.0};
  s.upper = {1.0, 1.0, 3.0};
  s.resolution = {12, 10, 8};
  s.patches = patches;
  s.extraCells = {1, 1, 1};
  return s;
}

std::vector<int> roundRobin(const Level& level, int ranks) {
  std::vector<int> owners;
  for (const Patch& p : level.patches()) owners.push_back(p.id() % ranks);
  return owners;
}

// Every rank sees the same directory name: in the test's working directory
// (the build tree), not in /tmp, so that even a crashed test leaves nothing
// there; removed after the test.
std::string sharedDirectory(const Communicator& comm, const std::string& name) {
  const std::string dir = (std::filesystem::current_path() /
                           ("tessera_archive_" + name + "_" + std::to_string(comm.size())))
                              .string();
  if (comm.isRoot()) {
    std::filesystem::remove_all(dir);
    std::filesystem::create_directories(dir);
  }
  comm.barrier();
  return dir;
}

template <class T>
T valueAt(const IntVector& c, int salt) {
  return static_cast<T>(c.x * 1.25 + c.y * 100.5 - c.z * 7.0 + salt);
}

struct Labels {
  VarLabelRegistry registry;
  const VarLabel* d = registry.create<CCVariable<double>>("d");
  const VarLabel* f = registry.create<CCVariable<float>>("f");
  const VarLabel* i = registry.create<CCVariable<int>>("i");
  const VarLabel* l = registry.create<CCVariable<std::int64_t>>("l");
  const VarLabel* sum = registry.create<SumVariable<double>>("sum");
  const VarLabel* lowest = registry.create<MinVariable<double>>("lowest");
  const VarLabel* count = registry.create<MaxVariable<int>>("count");
  std::vector<const VarLabel*> cells() const { return {d, f, i, l}; }
  std::vector<const VarLabel*> reductions() const { return {sum, lowest, count}; }
};

template <class T>
void fillLocal(OnDemandDataWarehouse& dw, const VarLabel* label, const Level& level,
               const std::vector<int>& owners, int rank, int salt) {
  for (const Patch& patch : level.patches()) {
    if (owners[static_cast<std::size_t>(patch.id())] != rank) continue;
    auto var = std::make_shared<CCVariable<T>>(level.ghostedBox(patch, 1));
    patch.extendedBox().forEachCell([&](const IntVector& c) { (*var)(c) = valueAt<T>(c, salt); });
    dw.putGridVariable(label, patch, var);
  }
}

template <class T>
int countWrong(const OnDemandDataWarehouse& dw, const VarLabel* label, const Level& level,
               const std::vector<int>& owners, int rank, int salt) {
  int wrong = 0;
  for (const Patch& patch : level.patches()) {
    if (owners[static_cast<std::size_t>(patch.id())] != rank) continue;
    const auto var = std::dynamic_pointer_cast<CCVariable<T>>(dw.findGridVariable(label, patch));
    if (!var) return 1 << 20;
    if (!var->box().contains(level.ghostedBox(patch, 2))) ++wrong;  // room for the requested ghosts
    patch.extendedBox().forEachCell([&](const IntVector& c) {
      if ((*var)(c) != valueAt<T>(c, salt)) ++wrong;
    });
  }
  return wrong;
}

class ArchiveFileTest : public ::testing::Test {
 protected:
  Communicator comm = Communicator::borrow(MPI_COMM_WORLD);
  Labels labels;
  std::vector<std::string> m_directories;  // made by writeSample; removed after the test

  // Tests leave nothing in the temporary directory.
  void TearDown() override {
    comm.barrier();  // every rank is done with the files
    if (comm.isRoot()) {
      for (const std::string& dir : m_directories)
        std::filesystem::remove_all(dir);
    }
    comm.barrier();
  }

  std::string writeSample(const std::string& name) {
    Grid grid;
    const Level& level = grid.addLevel(spec({3, 2, 2}));
    const auto owners = roundRobin(level, comm.size());
    OnDemandDataWarehouse dw("NewDW", 7, 0.125, 0.0625);
    fillLocal<double>(dw, labels.d, level, owners, comm.rank(), 1);
    fillLocal<float>(dw, labels.f, level, owners, comm.rank(), 2);
    fillLocal<int>(dw, labels.i, level, owners, comm.rank(), 3);
    fillLocal<std::int64_t>(dw, labels.l, level, owners, comm.rank(), 4);
    const double sum = 0.1 + 0.2;
    const double lowest = -3.5;
    const int count = 42;
    dw.setReducedValue(labels.sum, reinterpret_cast<const std::byte*>(&sum));
    dw.setReducedValue(labels.lowest, reinterpret_cast<const std::byte*>(&lowest));
    dw.setReducedValue(labels.count, reinterpret_cast<const std::byte*>(&count));
    m_directories.push_back(sharedDirectory(comm, name));
    const std::string path = m_directories.back() + "/t00007.h5";
    writeArchiveFile(path, comm, ArchiveStep{7, 0.125, 0.0625, "test"}, grid, owners, labels.cells(),
                     labels.reductions(), dw);
    return path;
  }
};

}  // namespace

TEST_F(ArchiveFileTest, EveryTypeRoundTripsIntoAnotherLayout) {
  const std::string path = writeSample("roundtrip");
  // Read back with another patch layout and another owner map.
  Grid grid;
  const Level& level = grid.addLevel(spec({2, 1, 4}));
  std::vector<int> owners;
  for (const Patch& p : level.patches()) owners.push_back((p.id() * 7 + 3) % comm.size());
  OnDemandDataWarehouse dw("NewDW", 0, 0.0, 0.0);
  dw.setGhostLayers({{labels.d, 2}, {labels.f, 2}, {labels.i, 2}, {labels.l, 2}});
  const ArchiveStep step = readArchiveFile(path, comm, grid, owners, labels.cells(), labels.reductions(), dw);
  EXPECT_EQ(step.timestep, 7);
  EXPECT_EQ(step.time, 0.125);
  EXPECT_EQ(step.delt, 0.0625);
  EXPECT_EQ(step.component, "test");
  int wrong = countWrong<double>(dw, labels.d, level, owners, comm.rank(), 1) +
              countWrong<float>(dw, labels.f, level, owners, comm.rank(), 2) +
              countWrong<int>(dw, labels.i, level, owners, comm.rank(), 3) +
              countWrong<std::int64_t>(dw, labels.l, level, owners, comm.rank(), 4);
  EXPECT_EQ(comm.allreduceSum(std::int64_t{wrong}), 0);
  double sum = 0.0, lowest = 0.0;
  int count = 0;
  ASSERT_TRUE(dw.reducedValue(labels.sum, reinterpret_cast<std::byte*>(&sum)));
  ASSERT_TRUE(dw.reducedValue(labels.lowest, reinterpret_cast<std::byte*>(&lowest)));
  ASSERT_TRUE(dw.reducedValue(labels.count, reinterpret_cast<std::byte*>(&count)));
  EXPECT_EQ(sum, 0.1 + 0.2);
  EXPECT_EQ(lowest, -3.5);
  EXPECT_EQ(count, 42);
}

TEST_F(ArchiveFileTest, CorruptDataFailsItsChecksumOnEveryRank) {
  const std::string path = writeSample("corrupt");
  if (comm.isRoot()) {
    const auto size = std::filesystem::file_size(path);
    std::fstream file(path, std::ios::in | std::ios::out | std::ios::binary);
    file.seekp(static_cast<std::streamoff>(size / 2));
    const char garbage[8] = {1, 2, 3, 4, 5, 6, 7, 8};
    file.write(garbage, sizeof(garbage));
  }
  comm.barrier();
  Grid grid;
  const Level& level = grid.addLevel(spec({3, 2, 2}));
  OnDemandDataWarehouse dw("NewDW", 0, 0.0, 0.0);
  try {
    readArchiveFile(path, comm, grid, roundRobin(level, comm.size()), labels.cells(), labels.reductions(), dw);
    FAIL() << "a corrupt file was read without complaint";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("checksum"), std::string::npos) << e.what();
  }
}

TEST_F(ArchiveFileTest, TruncatedOrForeignFilesAreInputErrors) {
  const std::string path = writeSample("truncated");
  Grid grid;
  const Level& level = grid.addLevel(spec({3, 2, 2}));
  const auto owners = roundRobin(level, comm.size());
  {
    // Another grid: the same file read with a different resolution.
    Grid other;
    LevelSpec bigger = spec({3, 2, 2});
    bigger.resolution = {12, 10, 9};
    const Level& otherLevel = other.addLevel(bigger);
    OnDemandDataWarehouse dw("NewDW", 0, 0.0, 0.0);
    try {
      readArchiveFile(path, comm, other, roundRobin(otherLevel, comm.size()), labels.cells(), {}, dw);
      FAIL() << "a file of another grid was accepted";
    } catch (const InputError& e) {
      EXPECT_NE(std::string(e.what()).find("another grid"), std::string::npos) << e.what();
    }
  }
  if (comm.isRoot()) std::filesystem::resize_file(path, std::filesystem::file_size(path) / 3);
  comm.barrier();
  OnDemandDataWarehouse dw("NewDW", 0, 0.0, 0.0);
  try {
    readArchiveFile(path, comm, grid, owners, labels.cells(), labels.reductions(), dw);
    FAIL() << "a truncated file was read without complaint";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find(path), std::string::npos) << e.what();
  }
  OnDemandDataWarehouse missing("NewDW", 0, 0.0, 0.0);
  EXPECT_THROW(readArchiveFile(path + ".nope", comm, grid, owners, labels.cells(), {}, missing), InputError);
}

// A refined grid: level 0 and a level 1 of two regions (one at a wall with
// extra cells, one inside), as a test of where each level's cells go.
Grid refinedGrid(IntVector coarsePatches, IntVector firstRegionPatches, IntVector secondRegionPatches,
                 int secondRegionHigh = 8) {
  Grid grid;
  grid.addLevel(spec(coarsePatches));
  grid.addRefinedLevel({2, 2, 2}, {LevelRegion{Box({0, 0, 0}, {8, 8, 8}), firstRegionPatches},
                                   LevelRegion{Box({12, 10, 6}, {20, 16, secondRegionHigh}),
                                               secondRegionPatches}});
  return grid;
}

std::vector<int> scattered(const Grid& grid, int ranks) {
  std::vector<int> owners;
  for (int id = 0; id < grid.numPatches(); ++id) owners.push_back((id * 5 + 1) % ranks);
  return owners;
}

// Every level's cells (extra cells included) come back bitwise, whatever
// the patch layouts and owners of writer and reader; a hierarchy with other
// regions or another number of levels is another grid.
TEST_F(ArchiveFileTest, EveryLevelRoundTripsAcrossLayouts) {
  const std::string dir = sharedDirectory(comm, "levels");
  m_directories.push_back(dir);
  const std::string path = dir + "/t00003.h5";
  const auto salt = [](const Level& level) { return 10 * level.index() + 1; };
  {
    const Grid grid = refinedGrid({3, 2, 2}, {2, 2, 1}, {1, 1, 1});
    const auto owners = roundRobin(grid.level(0), comm.size());
    std::vector<int> all = owners;
    for (const Patch& p : grid.level(1).patches()) all.push_back((p.id() + 1) % comm.size());
    OnDemandDataWarehouse dw("NewDW", 3, 0.5, 0.25);
    for (int l = 0; l < 2; ++l)
      fillLocal<double>(dw, labels.d, grid.level(l), all, comm.rank(), salt(grid.level(l)));
    writeArchiveFile(path, comm, ArchiveStep{3, 0.5, 0.25, "test"}, grid, all, {labels.d}, {}, dw);
  }
  const Grid grid = refinedGrid({2, 1, 4}, {1, 1, 2}, {2, 1, 1});
  const auto owners = scattered(grid, comm.size());
  OnDemandDataWarehouse dw("NewDW", 0, 0.0, 0.0);
  dw.setGhostLayers({{labels.d, 2}});
  const ArchiveStep step = readArchiveFile(path, comm, grid, owners, {labels.d}, {}, dw);
  EXPECT_EQ(step.timestep, 3);
  int wrong = 0;
  for (int l = 0; l < 2; ++l)
    wrong += countWrong<double>(dw, labels.d, grid.level(l), owners, comm.rank(), salt(grid.level(l)));
  EXPECT_EQ(comm.allreduceSumWrapping(static_cast<std::uint64_t>(wrong)), 0u);

  const auto expectAnotherGrid = [&](const Grid& other, const std::string& words) {
    OnDemandDataWarehouse into("NewDW", 0, 0.0, 0.0);
    try {
      readArchiveFile(path, comm, other, scattered(other, comm.size()), {labels.d}, {}, into);
      ADD_FAILURE() << "a file of another hierarchy was accepted (" << words << ")";
    } catch (const InputError& e) {
      EXPECT_NE(std::string(e.what()).find(words), std::string::npos) << e.what();
    }
  };
  expectAnotherGrid(refinedGrid({3, 2, 2}, {2, 2, 1}, {1, 1, 1}, 10), "level 1's region 1");
  Grid single;
  single.addLevel(spec({3, 2, 2}));
  expectAnotherGrid(single, "holds 2 level(s), the deck 1");
}
