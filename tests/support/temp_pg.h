// A PostgreSQL database of its own for each test, on the server that the test
// command starts on loopback: MAKRUK_TEST_POSTGRES holds its URL without a
// database name (postgresql://postgres@127.0.0.1:PORT). The database is made
// before the test and dropped after it.
#pragma once

#include <gtest/gtest.h>
#include <libpq-fe.h>
#include <unistd.h>

#include <cstdlib>
#include <stdexcept>
#include <string>

namespace makruk::testing_helpers {

class TempPg {
 public:
  // The server's URL, or empty when the tests run without one.
  static std::string server() {
    const char* url = std::getenv("MAKRUK_TEST_POSTGRES");
    return url ? url : "";
  }

  TempPg() : name_("makruk_test_" + std::to_string(getpid()) + "_" + std::to_string(counter()++)) {
    admin("DROP DATABASE IF EXISTS " + name_ + " WITH (FORCE)");
    admin("CREATE DATABASE " + name_);
  }
  ~TempPg() {
    try {
      admin("DROP DATABASE IF EXISTS " + name_ + " WITH (FORCE)");
    } catch (const std::exception&) {
      // the server is gone: nothing to clean
    }
  }
  TempPg(const TempPg&) = delete;
  TempPg& operator=(const TempPg&) = delete;

  std::string url() const { return server() + "/" + name_; }

 private:
  static int& counter() {
    static int n = 0;
    return n;
  }
  static void admin(const std::string& sql) {
    PGconn* c = PQconnectdb((server() + "/postgres").c_str());
    if (PQstatus(c) != CONNECTION_OK) {
      std::string msg = PQerrorMessage(c);
      PQfinish(c);
      throw std::runtime_error("test PostgreSQL: " + msg);
    }
    PQsetNoticeProcessor(c, [](void*, const char*) {}, nullptr);
    PGresult* r = PQexec(c, sql.c_str());
    const bool ok = PQresultStatus(r) == PGRES_COMMAND_OK;
    std::string msg = PQresultErrorMessage(r);
    PQclear(r);
    PQfinish(c);
    if (!ok) throw std::runtime_error("test PostgreSQL: " + msg);
  }

  std::string name_;
};

}  // namespace makruk::testing_helpers
