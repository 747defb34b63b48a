// Every message a player can be shown, as an id with parameters: the rules
// core's refusals (a FEN, a PGN, a move, an action) and the server's errors.
// The English text is made here from the message's template; the web client
// words the same id and parameters in the reader's language (web/src/i18n.ts),
// so that a refusal reads in Thai, English or Khmer alike. `makruk messages`
// lists them all.
//
// A template holds parameters in braces: `{move}` is the value as given;
// `{side|white:White|black:Black}` picks the words for the value (`*` for any
// other value); `{{` and `}}` are braces themselves. A parameter's kind
// follows from its name (message_params): `reason` is another message (why,
// inside a larger one), the counts and numbers below are numbers (written in
// the reader's digits), one with choices is a choice, and the rest is text
// that stays as it was given (a move, a name, a code).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace makruk {

#define MAKRUK_SIDE "{side|white:White|black:Black}"

// X(name, id, English template)
#define MAKRUK_MESSAGES(X)                                                                                         \
  /* text from outside the catalogue (a library's own words), shown as it is */                                   \
  X(Detail, "detail", "{detail}")                                                                                  \
  /* a FEN (Position::set) */                                                                                      \
  X(FenFields, "fen.fields", "FEN: expected at least a board and a side to move")                                  \
  X(FenTooManyFields, "fen.too-many-fields", "FEN: too many fields (at most 6)")                                   \
  X(FenRankShort, "fen.rank-short", "FEN board: rank {rank} does not have 8 squares")                              \
  X(FenTooManyRanks, "fen.too-many-ranks", "FEN board: more than 8 ranks")                                         \
  X(FenRankLong, "fen.rank-long", "FEN board: rank {rank} has more than 8 squares")                                \
  X(FenLetter, "fen.letter", "FEN board: unknown piece letter '{letter}'")                                         \
  X(FenPromoted, "fen.promoted", "FEN board: only a met may be marked promoted ('~' after '{letter}')")            \
  X(FenPawnRank, "fen.pawn-rank", "FEN board: an unpromoted pawn on its sixth rank or beyond ({square})")          \
  X(FenRanks, "fen.ranks", "FEN board: expected 8 ranks of 8 squares")                                             \
  X(FenKings, "fen.kings", "FEN board: " MAKRUK_SIDE " must have exactly one king")                                \
  X(FenTooManyPieces, "fen.too-many-pieces",                                                                       \
    "FEN board: " MAKRUK_SIDE " has more than two {piece|khon:khons|knight:knights|rook:rooks}")                   \
  X(FenTooManyPawns, "fen.too-many-pawns", "FEN board: " MAKRUK_SIDE " has more than eight pawns")                 \
  X(FenTooManyMets, "fen.too-many-mets",                                                                           \
    "FEN board: " MAKRUK_SIDE " has more than nine pawns, mets and promoted pawns together")                       \
  X(FenSide, "fen.side", "FEN side to move: expected 'w' or 'b', got '{got}'")                                     \
  X(FenRightsMakruk, "fen.rights-makruk", "FEN rights: must be '-' in Makruk, got '{got}'")                        \
  X(FenRightsLetter, "fen.rights-letter", "FEN rights: unknown letter '{letter}' (expected D, E, d, e or -)")       \
  X(FenRightsRepeated, "fen.rights-repeated", "FEN rights: letter '{letter}' repeated")                            \
  X(FenRightsPiece, "fen.rights-piece",                                                                            \
    "FEN rights: '{letter}' needs the {piece|king:king|neang:neang} on its starting square")                       \
  X(FenField4, "fen.field4", "FEN field 4: expected '-' or a number, got '{got}'")                                 \
  X(FenField5, "fen.field5", "FEN field 5: expected a number, got '{got}'")                                        \
  X(FenMoveNumber, "fen.move-number", "FEN move number: expected a positive number, got '{got}'")                  \
  X(FenCheck, "fen.check", "FEN: the side not to move is in check")                                                \
  /* moves (notation.h) */                                                                                         \
  X(MoveMalformed, "move.malformed", "malformed move '{move}' (expected e.g. e3e4 or d5d6m)")                       \
  X(MoveNoPromotion, "move.no-promotion", "move '{move}' does not promote (no trailing 'm')")                      \
  X(MoveIllegal, "move.illegal", "illegal move '{move}'")                                                          \
  X(SanMalformed, "san.malformed", "malformed SAN '{move}'")                                                       \
  X(SanAmbiguous, "san.ambiguous", "ambiguous SAN '{move}'")                                                       \
  X(TypedEmpty, "typed.empty", "no move was typed")                                                                \
  X(TypedBad, "typed.bad", "'{move}' is not a move")                                                               \
  X(TypedIllegal, "typed.illegal", "'{move}' is not a legal move here")                                            \
  X(TypedAmbiguous, "typed.ambiguous", "'{move}' could be more than one move")                                     \
  /* a game's actions (game.h) */                                                                                  \
  X(GameOver, "game.over",                                                                                         \
    "the game is over ({ending|checkmate:checkmate|resignation:resignation|stalemate:stalemate|"                  \
    "bare-kings:bare-kings|repetition:repetition|insufficient-material:insufficient-material|"                     \
    "count-expired:count-expired|count-mate:count-mate|expired:expired|agreement:agreement|aborted:aborted|time:time})")           \
  X(GameFinished, "game.finished", "the game is over")                                                             \
  X(CountAutomatic, "count.automatic", "counts start by themselves in automatic counting mode")                    \
  X(CountAlready, "count.already", MAKRUK_SIDE " is already counting")                                             \
  X(CountNotQualified, "count.not-qualified", MAKRUK_SIDE " does not qualify for a count")                         \
  X(CountStopAutomatic, "count.stop-automatic", "a count cannot be stopped in automatic counting mode")            \
  X(CountNotCounting, "count.not-counting", MAKRUK_SIDE " is not counting")                                        \
  X(ClaimMakruk, "claim.makruk",                                                                                   \
    "repetition draws are not claimed in Makruk (the third repetition draws by itself)")                           \
  X(ClaimNone, "claim.none",                                                                                       \
    "no threefold repetition to claim (this position has occurred {n} {n|1:time|*:times})")                       \
  X(DrawAlreadyOffered, "draw.already-offered", MAKRUK_SIDE " has already offered a draw")                         \
  X(DrawOffered, "draw.offered", MAKRUK_SIDE " offers a draw: accept or decline it")                               \
  X(DrawAgainLater, "draw.again-later", MAKRUK_SIDE " may offer a draw again after its next move")                 \
  X(DrawNoneToAccept, "draw.none-to-accept", "no draw offer to accept")                                            \
  X(DrawNoneToDecline, "draw.none-to-decline", "no draw offer to decline")                                         \
  X(AbortLate, "abort.late", MAKRUK_SIDE " has made a move: the game can no longer be called off")                \
  X(TimeUp, "time.up", "the time to move has run out: the game ends on time")                                     \
  X(TimeNotRunning, "time.not-running", MAKRUK_SIDE " is not to move: its clock is not running")                   \
  X(ActionMalformed, "action.malformed", "malformed action '{action}' (side must be w or b)")                      \
  X(ActionUnknown, "action.unknown", "unknown action '{action}'")                                                  \
  X(ActionFailed, "action.failed", "action {n} ('{action}'): {reason}")                                            \
  X(VariantBad, "variant.bad", "variant must be 'makruk' or 'ouk'")                                                \
  X(CountingBad, "counting.bad", "counting must be 'auto' or 'declare'")                                           \
  X(NoLegalMove, "position.no-legal-move", "no legal move in this position")                                       \
  /* a PGN or a list of moves (read_pgn) */                                                                        \
  X(PgnTooLong, "pgn.too-long", "the text is too long (at most 1,000,000 characters)")                             \
  X(PgnTag, "pgn.tag", "malformed tag near line {line} (a tag is [Name \"value\"])")                               \
  X(PgnVariant, "pgn.variant", "unknown variant '{variant}' (makruk or cambodian)")                                \
  X(PgnFen, "pgn.fen", "the FEN is not a position: {reason}")                                                      \
  X(PgnComment, "pgn.comment", "a comment '{{' is never closed")                                                   \
  X(PgnVariationCloses, "pgn.variation-closes", "a variation ')' closes nothing")                                  \
  X(PgnVariationOpen, "pgn.variation-open", "a variation '(' is never closed")                                     \
  X(PgnTooManyMoves, "pgn.too-many-moves", "too many moves (at most 2,000)")                                       \
  X(PgnMove, "pgn.move", "{number}{side|white:.|black:...} {move}: {reason}")                                      \
  X(PgnNoLegalMove, "pgn.no-legal-move", "the game is over there (no legal move)")                                 \
  X(PgnUnreadable, "pgn.unreadable", "unreadable move '{move}' (no notation the importer knows)")                  \
  /* requests to the server */                                                                                     \
  X(JsonMalformed, "request.json", "malformed JSON: {detail}")                                                     \
  X(JsonNotObject, "request.not-object", "expected a JSON object")                                                 \
  X(FieldType, "request.field-type", "a field has the wrong type")                                                 \
  X(TokenTooLong, "request.token-too-long", "token too long")                                                      \
  X(IdTooLong, "request.id-too-long", "id too long")                                                               \
  X(BrowserTooLong, "request.browser-too-long", "browser too long")                                                \
  X(NoEndpoint, "request.no-endpoint", "no such endpoint")                                                         \
  X(RequestTooLarge, "request.too-large", "the request is too large")                                              \
  X(HeadersTooLarge, "request.headers-too-large", "the request's headers are too large")                           \
  X(FramingMalformed, "request.framing", "malformed Transfer-Encoding or Content-Length")                          \
  X(FramingBoth, "request.framing-both", "both Transfer-Encoding and Content-Length")                              \
  X(CodingUnknown, "request.coding", "only the chunked transfer coding is understood")                             \
  X(JsonOnly, "request.json-only", "the body must be application/json")                                            \
  X(OriginRefused, "request.origin", "origin not allowed")                                                         \
  X(HostRefused, "request.host", "this server does not answer for that host name")                                \
  X(MethodRefused, "request.method", "method not allowed")                                                         \
  X(WebSocketPath, "request.ws-path", "WebSocket lives at /ws")                                                    \
  X(PicturesBusy, "server.pictures-busy", "too many pictures being drawn; try again in a moment")                  \
  X(TablesBusy, "server.tables-busy", "the tables did not answer in time; try again in a moment")                 \
  X(PictureFailed, "server.picture-failed", "the picture could not be drawn")                                      \
  X(StorageFailed, "server.storage-failed", "storage failed: {detail}")                                            \
  X(StorageConflict, "server.storage-conflict", "{detail}")                                                        \
  X(QrFailed, "server.qr-failed", "QR encoding failed")                                                            \
  X(ClockAdvance, "server.clock-advance", "'advanceMs' must be a number of milliseconds >= 0")                     \
  /* names and texts */                                                                                            \
  X(NameUtf8, "name.utf8", "the name is not valid UTF-8")                                                          \
  X(NameControl, "name.control", "the name must be text without control characters")                              \
  X(NameDirection, "name.direction", "the name must be text without control or direction characters")             \
  X(NameInvisible, "name.invisible", "the name must have a visible character")                                     \
  X(NameMarks, "name.marks", "the name must not stack more than {max} marks on a letter")                           \
  X(NameLength, "name.length", "the name must have 1 to {max} characters")                                         \
  X(TextUtf8, "text.utf8", "the text is not valid UTF-8")                                                          \
  X(TextControl, "text.control", "the text must not hold control characters")                                      \
  X(TextDirection, "text.direction", "the text must not hold direction or line-separator characters")               \
  X(TextInvisible, "text.invisible", "the text must have a visible character")                                      \
  X(TextMarks, "text.marks", "the text must not stack more than {max} marks on a letter")                           \
  X(TextLength, "text.length", "the text must have 1 to {max} characters")                                         \
  /* limits */                                                                                                     \
  X(LimitTables, "limit.tables", "too many new tables from your address; wait a minute")                           \
  X(LimitCpuTables, "limit.cpu-tables", "too many tables against the CPU from your address; wait a minute")        \
  X(LimitJoins, "limit.joins", "too many join requests from your address; wait a minute")                          \
  X(LimitFeedback, "limit.feedback", "too many messages to the board from your address; wait a minute")            \
  X(LimitSecrets, "limit.secrets", "too many wrong secrets from your address; wait a minute")                      \
  X(LimitRecommendations, "limit.recommendations", "too many recommendations from your address; wait a minute")    \
  X(LimitSubscriptions, "limit.subscriptions", "too many push subscriptions from your address; wait a minute")    \
  X(LimitWrongCodes, "limit.wrong-codes", "too many wrong codes; wait a minute")                                   \
  X(LimitMessages, "limit.messages", "too many messages; slow down")                                               \
  X(LimitSeekers, "limit.seekers", "too many people wait from your address")                                       \
  X(LimitSeeks, "limit.seeks", "too many requests to find an opponent; wait a minute")                             \
  X(LimitPictures, "limit.pictures", "too many game pictures drawn for your address; wait a minute")               \
  X(CpuBusy, "limit.cpu-busy", "the CPU players are all busy; try again in a minute")                              \
  /* a new table */                                                                                                \
  X(VariantUnknown, "table.variant", "unknown variant '{variant}' (makruk or ouk)")                                \
  X(CpuLevel, "table.cpu-level", "cpu must be a level from 1 to 8")                                                \
  X(ModeBad, "table.mode", "mode must be 'live' or 'turn'")                                                        \
  X(CpuLive, "table.cpu-live", "a table against the CPU is always live")                                           \
  X(CpuStartsAtOnce, "table.cpu-starts-at-once", "a table against the CPU starts at once")                         \
  X(StartsAtPast, "table.starts-at-past", "startsAt must be in the future")                                        \
  X(StartsAtFar, "table.starts-at-far", "startsAt must be within a year")                                          \
  X(FenTooLong, "table.fen-too-long", "fen is too long")                                                           \
  X(FenOver, "table.fen-over", "the game is already over in that position")                                        \
  X(ClockBad, "table.clock", "clock must be minutes from 1 to 180 and an increment from 0 to 60 seconds, or null")  \
  X(ClockTurnBased, "table.clock-turn-based", "a turn-based table has no clock")                                  \
  /* tables and their games */                                                                                     \
  X(NoParty, "table.unknown", "no party with code '{code}'")                                                       \
  X(NoGame, "game.unknown", "no game with id '{id}'")                                                              \
  X(TokenUnknown, "table.token-unknown", "unknown token for this party")                                           \
  X(TokenNoSeat, "table.token-no-seat", "that token holds no seat of that table")                                  \
  X(HelloFirst, "table.hello-first", "say hello first")                                                            \
  X(PartyGone, "table.gone", "the party is gone")                                                                  \
  X(PartyFull, "table.full", "the table is full: watch it, or start a table of your own")                          \
  X(PartyEndedTurn, "table.ended-turn", "the table ended after 45 days without a move")                            \
  X(PartyEndedLive, "table.ended-live", "the table ended after a long time without a move")                        \
  X(NoStartTime, "table.no-start-time", "this table has no start time")                                            \
  X(MessageUnknown, "table.message-unknown", "unknown message type '{type}'")                                      \
  X(VersionBad, "table.version-bad", "'v' must be a game version (0 or more)")                                     \
  X(VersionRequired, "table.version-required", "'v' (the game version you saw) is required")                      \
  X(MoveRequired, "table.move-required", "'move' is required")                                                     \
  X(StartHostOnly, "table.start-host-only", "only the host can start the game")                                    \
  X(StartAlready, "table.start-already", "the game has already started")                                           \
  X(StartWaiting, "table.start-waiting", "waiting for a second player")                                            \
  X(StartTooEarly, "table.start-too-early", "the table starts at {time}; it cannot start earlier")                  \
  X(RematchSpectator, "table.rematch-spectator", "spectators cannot start a game")                                 \
  X(RematchRunning, "table.rematch-running", "the game is still running")                                          \
  X(RematchDeclineSpectator, "table.rematch-decline-spectator", "spectators have no rematch to decline")           \
  X(RematchNone, "table.rematch-none", "no rematch is on offer")                                                   \
  X(RematchTournament, "table.rematch-tournament", "a tournament's game has no rematch: the tournament pairs the next round") \
  X(ActSpectator, "table.spectator", "spectators cannot play")                                                     \
  X(ActNotStarted, "table.not-started", "the game has not started")                                                \
  X(ActVersion, "table.version", "the game is at version {version}, not {sent}")                                   \
  X(NotYourTurn, "table.not-your-turn", "it is not your turn")                                                     \
  X(QuickPlayersOnly, "quick.players-only", "only players send quick messages")                                    \
  X(QuickUnknown, "quick.unknown", "unknown phrase '{phrase}'")                                                    \
  X(QuickTooSoon, "quick.too-soon", "one quick message every {seconds} seconds")                                   \
  /* finding an opponent */                                                                                        \
  X(SeekVariant, "seek.variant", "variant must be 'makruk', 'ouk' or empty (either)")                              \
  X(SeekCounting, "seek.counting", "counting must be 'auto', 'declare' or empty (either)")                         \
  X(SeekMode, "seek.mode", "mode must be 'live', 'turn' or empty (either)")                                        \
  X(PairingBegun, "seek.game-begun", "the game has begun already")                                                 \
  /* tournaments */                                                                                                \
  X(TournamentUnknown, "tournament.unknown", "no tournament with code '{code}'")                                   \
  X(TournamentFormat, "tournament.format", "format must be 'swiss', 'roundrobin' or 'arena'")                      \
  X(TournamentRounds, "tournament.rounds", "a Swiss has 1 to {max} rounds")                                        \
  X(TournamentMinutes, "tournament.minutes", "an arena lasts {min} to {max} minutes")                              \
  X(TournamentHostOnly, "tournament.host-only", "only the tournament's host can do that")                          \
  X(TournamentNotPlayer, "tournament.not-player", "this browser holds no player of this tournament")              \
  X(TournamentAction, "tournament.action", "unknown action '{action}'")                                            \
  X(TournamentResult, "tournament.result", "result must be '1-0', '1/2-1/2' or '0-1'")                             \
  X(TournamentFull, "tournament.full", "the tournament is full")                                                   \
  X(TournamentNotOpen, "tournament.not-open", "a round robin under way takes no new players")                      \
  X(TournamentFinished, "tournament.finished", "the tournament is over")                                           \
  X(TournamentTooFew, "tournament.too-few", "at least two players are needed to start")                            \
  X(TournamentStarted, "tournament.started", "the tournament has started already")                                 \
  X(TournamentNotRunning, "tournament.not-running", "the tournament is not under way")                             \
  X(TournamentNoPlayer, "tournament.no-player", "no such player")                                                  \
  X(TournamentNoGame, "tournament.no-game", "no such game under way")                                              \
  X(TournamentBusy, "tournament.busy", "the tournament changed meanwhile; try again")                              \
  /* the feedback board and recommendations */                                                                     \
  X(FeedbackKind, "feedback.kind", "kind must be 'bug', 'feedback' or 'setting'")                                  \
  X(FeedbackTable, "feedback.table", "table must be a table code")                                                 \
  X(FeedbackStatus, "feedback.status", "status must be 'new', 'planned', 'done' or 'wont'")                        \
  X(FeedbackUnknown, "feedback.unknown", "no such item")                                                           \
  X(AdminSecret, "admin.secret", "the admin secret is missing or wrong")                                           \
  X(AdminHidden, "admin.hidden", "'hidden' (true or false) is needed")                                             \
  X(RecommendStars, "recommend.stars", "stars must be 1 to 5")                                                     \
  X(RecommendToken, "recommend.token", "a player's token is needed")                                               \
  X(RecommendTooEarly, "recommend.too-early", "recommend a game once you have played one to its end ({moves} moves of your own)") \
  X(RecommendUnknown, "recommend.unknown", "no such recommendation")                                               \
  /* Web Push */                                                                                                   \
  X(PushUnavailable, "push.unavailable", "push notifications are not set up")                                      \
  X(PushTables, "push.tables", "'tables' must be a list of {{code, token}}")                                       \
  X(PushTooManyTables, "push.too-many-tables", "at most 100 tables at a time")                                     \
  X(PushTable, "push.table", "each table must be {{code, token}} strings")                                         \
  X(PushLang, "push.lang", "'lang' must be a string")                                                              \
  X(PushSubscription, "push.subscription", "'subscription' is required")                                           \
  X(PushSubscriptionShape, "push.subscription-shape", "the subscription must be {{endpoint, keys: {{p256dh, auth}}}}") \
  X(PushEndpointUrl, "push.endpoint-url", "the endpoint must be an absolute URL")                                  \
  X(PushEndpointHttps, "push.endpoint-https", "the endpoint must be an https URL")                                 \
  X(PushEndpointPublic, "push.endpoint-public", "the endpoint must be a push service's public https URL")           \
  X(PushKeys, "push.keys", "the subscription keys are malformed")                                                  \
  X(PushP256dh, "push.p256dh", "p256dh is not a P-256 public key")                                                 \
  X(PushEndpoint, "push.endpoint", "'endpoint' is required")

enum class Msg : uint16_t {
#define MAKRUK_MESSAGE_NAME(name, id, english) name,
  MAKRUK_MESSAGES(MAKRUK_MESSAGE_NAME)
#undef MAKRUK_MESSAGE_NAME
};

// A message: its id and its parameters' values.
struct Message {
  struct Arg {
    std::string name;
    std::string text;                       // a text's or a number's value (the number in decimal)
    bool number = false;
    std::shared_ptr<const Message> nested;  // a message's value (`reason`)
    Arg(std::string name, std::string_view text);
    Arg(std::string name, const char* text) : Arg(std::move(name), std::string_view(text)) {}
    Arg(std::string name, const std::string& text) : Arg(std::move(name), std::string_view(text)) {}
    Arg(std::string name, int64_t n);
    Arg(std::string name, int n) : Arg(std::move(name), int64_t(n)) {}
    Arg(std::string name, size_t n) : Arg(std::move(name), int64_t(n)) {}
    Arg(std::string name, Message nested);
  };

  Msg id = Msg::Detail;
  std::vector<Arg> args;

  Message() = default;
  Message(Msg id, std::vector<Arg> args = {}) : id(id), args(std::move(args)) {}
  // Text from outside the catalogue (a library's own words): Msg::Detail.
  static Message detail(std::string_view text) { return Message(Msg::Detail, {{"detail", text}}); }

  const Arg* arg(std::string_view name) const;
  // In English, from the template.
  std::string english() const;
  // {"msg":"…","args":{…}} as JSON (nested messages also carry their "error").
  std::string json() const;
};

// The side as a message's `side` parameter has it: "white" or "black".
inline std::string_view side_arg(bool white) { return white ? "white" : "black"; }

// Where a refusal's reason goes: its English text, the message itself, or
// nowhere. Functions that refuse take one, so that callers may pass a
// std::string*, a Message* or nullptr.
class Why {
 public:
  Why(std::nullptr_t = nullptr) {}
  Why(std::string* text) : text_(text) {}
  Why(Message* message) : message_(message) {}
  // Records the reason; always false, so that `return why(…)` refuses.
  bool operator()(Message m) const;

 private:
  std::string* text_ = nullptr;
  Message* message_ = nullptr;
};

// The catalogue.
size_t message_count();
Msg message_at(size_t i);
std::string_view message_id(Msg m);
std::string_view message_template(Msg m);
bool message_by_id(std::string_view id, Msg& out);

// A template's parameters, in order of first use, each with its kind and, for a
// choice, the values it names.
struct MessageParam {
  std::string name;
  std::string kind;  // "text", "number", "choice" or "message"
  std::vector<std::string> choices;
};
std::vector<MessageParam> message_params(Msg m);

// A template filled in (English: the catalogue's; the tests use others).
std::string format_message(std::string_view tmpl, const std::vector<Message::Arg>& args);

// `makruk messages`: [{"id","english","params":[{"name","kind","choices"?}]}, …], one line each.
std::string messages_json();

}  // namespace makruk
