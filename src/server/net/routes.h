// The API's routes: each method and path pattern ("/api/tables/{code}/join"),
// the part that answers it and its handler, in one table. Without Beast: the
// network layer (http_server.cpp) reads the request and writes the answer;
// this part finds who answers it, and where: the tables' routes on the hub's
// thread, the lobby's, the community's and turn notifications' on their own.
#pragma once

#include <string>
#include <string_view>

#include "core/messages.h"
#include "server/community/community.h"
#include "server/tables/hub.h"
#include "server/tournaments/tournaments.h"

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

// The parts that answer, and how the community asks the tables whose seat a
// token is (from the community's thread: the network layer posts it to the
// hub's).
struct Parts {
  Hub& hub;
  Community& community;
  Community::SeatCheck seat_check;
  Lobby& lobby;
  TurnNotices& notices;
  Tournaments& tournaments;
};

enum class Runs { OnHub, OnLobby, OnCommunity, OnNotices, OnTournaments };

// Where a request's answer is made (a path no route has: on the hub's, which
// touches nothing for it).
Runs runs_on(const ApiRequest& r);
// The table a request names ("{code}" in its route), upper case; empty for
// one that names none. The network layer asks its answer of the hub that
// holds that table.
std::string table_code(const ApiRequest& r);
// The answer, made on the thread runs_on says, given to `respond` once: at
// once, or later for a request that writes (a new table, a join), which the
// hub answers once its writer has stored it. 404 for a path no route has,
// 405 for a method its route does not take.
void answer(Parts& parts, const ApiRequest& r, Hub::Respond respond);
// The same, for a hub that writes at once (tests): throws when the answer
// did not come before it returned.
Answer answer(Parts& parts, const ApiRequest& r);

// An error's JSON body ({"error","code","msg","args"}), and a reply with it.
std::string error_json(std::string_view code, Msg message);
Answer error_body(Outcome outcome, std::string_view code, Msg message);

}  // namespace makruk::server::routes
