// The API's routes: each method and path pattern ("/api/parties/{code}/join")
// and the hub's handler for it, in one table. Without Beast: the network
// layer (http_server.cpp) reads the request and writes the answer; this part
// finds who answers it. Runs on the hub's thread.
#pragma once

#include <string>
#include <string_view>

#include "core/messages.h"
#include "server/tables/hub.h"

namespace makruk::server::routes {

enum class Method { Get, Post, Other };  // HEAD comes as Get

struct ApiRequest {
  Method method = Method::Get;
  std::string_view path;   // without the query
  std::string_view query;  // after '?', as sent
  std::string_view body;
  std::string_view ip;             // the client's address (its key for the limits)
  std::string_view authorization;  // the Authorization header
  std::string_view base_url;       // the public URL, for links
};

// The hub's answer; 404 for a path no route has, 405 for a method its route
// does not take.
HttpReply answer(Hub& hub, const ApiRequest& r);

// An error's JSON body ({"error","code","msg","args"}), and a reply with it.
std::string error_json(std::string_view code, Msg message);
HttpReply error_body(int status, std::string_view code, Msg message);

}  // namespace makruk::server::routes
