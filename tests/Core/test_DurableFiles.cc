// Atomic writes (Core/IO/DurableFiles.h): the content is published whole,
// the directory that holds the new name is flushed after the rename (the
// `dirsync` fault is reached), and a failing flush leaves neither a
// temporary file nor an open descriptor behind.
#include <gtest/gtest.h>

#include "TestHelpers.h"

#include "Core/IO/DurableFiles.h"

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

namespace tessera {
namespace {

namespace fs = std::filesystem;

class DurableFilesTest : public ::testing::Test {
 protected:
  DurableFilesTest() : m_dir(fs::current_path() / "durable_files_test") {
    fs::remove_all(m_dir);
    fs::create_directories(m_dir);
  }
  ~DurableFilesTest() override {
    unsetenv("TESSERA_TEST_IO_FAULT");
    fs::remove_all(m_dir);
  }
  static std::size_t openDescriptors() {
    return static_cast<std::size_t>(
        std::distance(fs::directory_iterator("/proc/self/fd"), fs::directory_iterator{}));
  }
  static std::string read(const fs::path& path) {
    std::ifstream in(path);
    return std::string(std::istreambuf_iterator<char>(in), {});
  }
  fs::path m_dir;
};

TEST_F(DurableFilesTest, TheNewContentReplacesTheOldWhole) {
  const fs::path file = m_dir / "index.yaml";
  writeFileAtomically(file.string(), "old\n");
  writeFileAtomically(file.string(), "new content\n");
  EXPECT_EQ(read(file), "new content\n");
  EXPECT_FALSE(fs::exists(m_dir / "index.yaml.tmp"));
}

// The directory is flushed after the rename, or a power loss could lose a
// name reported written: the fault on that flush is reached, and named.
TEST_F(DurableFilesTest, TheDirectoryIsFlushedAfterTheRename) {
  const fs::path file = m_dir / "index.yaml";
  setenv("TESSERA_TEST_IO_FAULT", "dirsync:durable_files_test/index.yaml:0", 1);
  const std::string message = testing::errorOf([&] { writeFileAtomically(file.string(), "x\n"); });
  EXPECT_TRUE(testing::contains(message, "dirsync of '" + file.string() + "' failed")) << message;
  setenv("TESSERA_TEST_IO_FAULT", "dirsync:durable_files_test/moved:0", 1);
  std::ofstream(m_dir / "written") << "data";
  EXPECT_TRUE(testing::contains(testing::errorOf([&] {
                                  renameDurably((m_dir / "written").string(),
                                                (m_dir / "moved").string());
                                }),
                                "dirsync of")) << "renameDurably flushes the directory too";
}

// A flush that fails closes the descriptor (it leaked: `fsync(fd) != 0 ||
// close(fd)` skipped the close) and removes the temporary file.
TEST_F(DurableFilesTest, AFailingFlushLeavesNoDescriptorAndNoTemporary) {
  const fs::path file = m_dir / "run.xmf";
  setenv("TESSERA_TEST_IO_FAULT", "sync:durable_files_test/run.xmf.tmp:0", 1);
  const std::size_t before = openDescriptors();
  for (int attempt = 0; attempt < 5; ++attempt) {
    const std::string message =
        testing::errorOf([&] { writeFileAtomically(file.string(), "<Xdmf/>\n"); });
    EXPECT_TRUE(testing::contains(message, "sync of")) << message;
  }
  EXPECT_EQ(openDescriptors(), before);
  EXPECT_FALSE(fs::exists(m_dir / "run.xmf.tmp"));
  EXPECT_FALSE(fs::exists(file));
}

TEST_F(DurableFilesTest, AnUnwritableFolderIsNamed) {
  const std::string message = testing::errorOf(
      [&] { writeFileAtomically((m_dir / "missing" / "index.yaml").string(), "x"); });
  EXPECT_TRUE(testing::contains(message, "missing/index.yaml.tmp")) << message;
}

}  // namespace
}  // namespace tessera
