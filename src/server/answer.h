// What the server's parts answer a request with: a document (JSON, or a
// picture, a calendar, PGN: its media type says) or a refusal, with what it
// came to (`Outcome`). Only the network layer (net/) turns it into HTTP: the
// outcome into a status line, the type into a header.
#pragma once

#include <ostream>
#include <string>
#include <string_view>

namespace makruk::server {

enum class Outcome {
  Ok,
  Created,        // something new was made (a table, a feedback item)
  BadRequest,     // the request is malformed or asks what the rules refuse
  Unauthorized,   // a secret is needed and was not given right
  Forbidden,      // not this client's to do
  NotFound,       // nothing by that name (or nothing this client may see)
  MethodRefused,  // the path is known, the method is not
  Conflict,       // the state moved on (a seat taken, a table full)
  RateLimited,    // too many of these from this address now; try later
  Unavailable,    // a service it needs is away or busy; try again
  Internal,       // the server failed
};

constexpr std::string_view outcome_name(Outcome o) {
  switch (o) {
    case Outcome::Ok: return "ok";
    case Outcome::Created: return "created";
    case Outcome::BadRequest: return "bad-request";
    case Outcome::Unauthorized: return "unauthorized";
    case Outcome::Forbidden: return "forbidden";
    case Outcome::NotFound: return "not-found";
    case Outcome::MethodRefused: return "method-refused";
    case Outcome::Conflict: return "conflict";
    case Outcome::RateLimited: return "rate-limited";
    case Outcome::Unavailable: return "unavailable";
    case Outcome::Internal: return "internal";
  }
  return "internal";
}
inline std::ostream& operator<<(std::ostream& out, Outcome o) { return out << outcome_name(o); }

struct Answer {
  Outcome outcome = Outcome::Ok;
  std::string body;
  std::string type = "application/json";  // the body's media type
};

}  // namespace makruk::server
