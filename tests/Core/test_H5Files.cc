// The HDF5 layer's checks (Core/IO/H5Files.h): a failing H5Aexists or
// H5Lexists is an error, never "absent"; a missing group on a link's path
// is absent, not an error; an attribute with no value is named, not read
// as one value.
#include <gtest/gtest.h>

#include "TestHelpers.h"

#include "Core/IO/H5Files.h"

#include <filesystem>

namespace tessera {
namespace {

namespace fs = std::filesystem;

class H5FilesTest : public ::testing::Test {
 protected:
  H5FilesTest() : m_path((fs::current_path() / "h5files_test.h5").string()) {
    fs::remove(m_path);
    m_file = H5File(H5Fcreate(m_path.c_str(), H5F_ACC_EXCL, H5P_DEFAULT, H5P_DEFAULT));
  }
  ~H5FilesTest() override {
    m_file = H5File();
    fs::remove(m_path);
  }
  std::string m_path;
  H5File m_file;
};

TEST_F(H5FilesTest, PresentAndAbsentAttributesAndLinks) {
  writeAttribute(m_file.get(), "time", 1.5);
  EXPECT_TRUE(hasAttribute(m_file.get(), "time"));
  EXPECT_FALSE(hasAttribute(m_file.get(), "delt"));
  EXPECT_DOUBLE_EQ(readDoubleAttribute(m_file.get(), "time"), 1.5);
  const H5Group group(H5Gcreate2(m_file.get(), "reductions", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT),
                      "group");
  EXPECT_TRUE(hasLink(m_file.get(), "reductions"));
  EXPECT_FALSE(hasLink(m_file.get(), "reductions/delT"));
  EXPECT_FALSE(hasLink(m_file.get(), "missing/delT"));  // the group is missing: absent
}

TEST_F(H5FilesTest, AFailingLookupIsAnErrorNotAbsent) {
  const H5ErrorSilencer quiet;
  EXPECT_THROW(hasAttribute(H5I_INVALID_HID, "time"), H5CallError);
  EXPECT_THROW(hasLink(H5I_INVALID_HID, "u"), H5CallError);
}

TEST_F(H5FilesTest, AnAttributeWithNoValueIsNamed) {
  const H5Dataspace empty(H5Screate(H5S_NULL), "null dataspace");
  const H5Attribute attribute(
      H5Acreate2(m_file.get(), "delt", H5T_NATIVE_DOUBLE, empty.get(), H5P_DEFAULT, H5P_DEFAULT),
      "attribute");
  const std::string message = testing::errorOf([&] { readDoubleAttribute(m_file.get(), "delt"); });
  EXPECT_TRUE(testing::contains(message, "attribute 'delt' holds no value")) << message;
}

}  // namespace
}  // namespace tessera
