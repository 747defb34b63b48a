// A database file of its own for each test, in the temporary folder; the file
// and its WAL companions are removed before the test and after it.
#pragma once

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <string>

namespace makruk::testing_helpers {

class TempDb {
 public:
  explicit TempDb(const std::string& prefix)
      : path_(std::filesystem::temp_directory_path() /
              (prefix + "-" + std::to_string(getpid()) + "-" + test_name() + ".db")) {
    clear();
  }
  // The running test's name, fit for a file name ("Reopens/1" of a
  // parameterised test becomes "Reopens-1").
  static std::string test_name() {
    std::string name = ::testing::UnitTest::GetInstance()->current_test_info()->name();
    for (char& c : name)
      if (c == '/') c = '-';
    return name;
  }
  ~TempDb() { clear(); }
  TempDb(const TempDb&) = delete;
  TempDb& operator=(const TempDb&) = delete;

  std::string path() const { return path_.string(); }
  // Removes the database (close it first).
  void clear() {
    for (const char* suffix : {"", "-wal", "-shm"}) std::filesystem::remove(path_.string() + suffix);
  }

 private:
  std::filesystem::path path_;
};

}  // namespace makruk::testing_helpers
