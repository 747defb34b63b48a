// What the server's parts answer a request with: a status, a body and its
// type. Only the network layer (net/) turns it into HTTP.
#pragma once

#include <string>

namespace makruk::server {

struct HttpReply {
  int status = 200;
  std::string body;
  std::string content_type = "application/json";
};

}  // namespace makruk::server
