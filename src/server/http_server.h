// `makruk serve`: the web client, the JSON API and the WebSocket endpoint.
#pragma once

#include <cstdint>
#include <string>

namespace makruk::server {

struct ServerOptions {
  std::string address = "0.0.0.0";
  uint16_t port = 8080;
  std::string data_dir = "data";
  std::string web_dir = "web/dist";
  int threads = 2;      // network threads
  int cpu_threads = 1;  // engine searches for CPU opponents
  std::string push_subject = "mailto:admin@localhost";  // VAPID contact for push services
  bool push_allow_http = false;  // accept plain-http push endpoints (tests)
  bool test_clock = false;       // POST /api/test/clock moves the clock (tests)
};

// Runs until SIGINT or SIGTERM. Returns the process exit code.
int run_server(const ServerOptions& options);

}  // namespace makruk::server
