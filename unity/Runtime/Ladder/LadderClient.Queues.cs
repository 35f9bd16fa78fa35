using System;
using System.Collections.Generic;
using System.Globalization;
using System.Text;
using System.Threading;
using System.Threading.Tasks;

namespace RankingElo.Ladder
{
    /// <summary>The matchmaking queues of the ladder server (docs/matchmaking.md in the repository).</summary>
    public sealed partial class LadderClient
    {
        /// <summary>The longest a long-poll of <see cref="GetTicketAsync"/> waits on the server: 30 seconds.</summary>
        public static readonly TimeSpan MaxTicketWait = TimeSpan.FromSeconds(30);

        /// <summary>
        /// Joins a matchmaking queue: with the player's token for that player alone, or with a
        /// report key for any players (a party of up to the queue's <c>party_max</c> plays on one
        /// side). Send the same <paramref name="requestId"/> again after a timeout or a lost
        /// connection: the server answers with the ticket it made the first time.
        /// </summary>
        /// <param name="ladder">The ladder's name.</param>
        /// <param name="queue">The queue's name.</param>
        /// <param name="players">The ticket's players.</param>
        /// <param name="attributes">The queue's attributes with their values (<c>region</c> = <c>eu</c>), or null when the queue has none.</param>
        /// <param name="requestId">An id that makes a retry return the same ticket (1 to 64 of A-Z a-z 0-9 - _ . :), or null.</param>
        /// <param name="timeout">This call's timeout instead of <see cref="Timeout"/>.</param>
        /// <param name="cancellationToken">Stops the call (it then throws <see cref="OperationCanceledException"/>).</param>
        /// <returns>The ticket, waiting.</returns>
        /// <exception cref="LadderException">The server refused it (a player already waiting: <c>already_waiting</c>, 409; another player's token: 403), did not answer in time or could not be reached.</exception>
        public async Task<QueueTicket> JoinQueueAsync(string ladder, string queue, string[] players, IDictionary<string, string> attributes = null, string requestId = null, TimeSpan? timeout = null, CancellationToken cancellationToken = default(CancellationToken))
        {
            if (players == null) throw new ArgumentNullException("players");
            var body = new StringBuilder("{\"players\":");
            LadderJson.Names(body, players);
            if (attributes != null)
            {
                body.Append(",\"attributes\":{");
                bool first = true;
                foreach (var pair in attributes)
                {
                    body.Append(first ? "" : ",");
                    LadderJson.Quote(body, pair.Key);
                    body.Append(':');
                    LadderJson.Quote(body, pair.Value);
                    first = false;
                }
                body.Append('}');
            }
            if (requestId != null)
            {
                body.Append(",\"id\":");
                LadderJson.Quote(body, requestId);
            }
            body.Append('}');
            return QueueTicket.Read(LadderJson.Parse(await Send("POST", QueuePath(ladder, queue) + "/tickets", body.ToString(), timeout, cancellationToken)));
        }

        /// <summary>
        /// A ticket now or, with <paramref name="wait"/>, as soon as its state changes from
        /// <see cref="TicketState.Waiting"/> (the server holds the request up to
        /// <paramref name="wait"/>, at most <see cref="MaxTicketWait"/>; the call's timeout is
        /// the wait plus <see cref="Timeout"/>).
        /// </summary>
        /// <param name="ladder">The ladder's name.</param>
        /// <param name="queue">The queue's name.</param>
        /// <param name="ticket">The ticket's id (<see cref="QueueTicket.Ticket"/>).</param>
        /// <param name="wait">How long the server may wait for a change (whole seconds, up to 30), or null to answer at once.</param>
        /// <param name="cancellationToken">Stops the call (it then throws <see cref="OperationCanceledException"/>).</param>
        /// <returns>The ticket.</returns>
        /// <exception cref="ArgumentOutOfRangeException"><paramref name="wait"/> is negative or longer than 30 s.</exception>
        /// <exception cref="LadderException">The server refused the request (another player's ticket: 403; an unknown ticket: 404), did not answer in time or could not be reached.</exception>
        public async Task<QueueTicket> GetTicketAsync(string ladder, string queue, string ticket, TimeSpan? wait = null, CancellationToken cancellationToken = default(CancellationToken))
        {
            int seconds = 0;
            if (wait.HasValue)
            {
                if (wait.Value < TimeSpan.Zero || wait.Value > MaxTicketWait) throw new ArgumentOutOfRangeException("wait", wait.Value, "must be from 0 to 30 seconds");
                seconds = (int)Math.Ceiling(wait.Value.TotalSeconds);
            }
            string path = QueuePath(ladder, queue) + "/tickets/" + Uri.EscapeDataString(ticket) + (seconds > 0 ? "?wait=" + seconds.ToString(CultureInfo.InvariantCulture) : "");
            return QueueTicket.Read(LadderJson.Parse(await Send("GET", path, null, Timeout + TimeSpan.FromSeconds(seconds), cancellationToken)));
        }

        /// <summary>
        /// Waits until the ticket is no longer waiting (matched, cancelled or expired), with
        /// long-polls of up to 30 s one after another; from Unity's main thread it never blocks
        /// the frame. Cancel <paramref name="cancellationToken"/> to stop waiting (the ticket stays
        /// in the queue: cancel it with <see cref="CancelTicketAsync"/>).
        /// </summary>
        /// <param name="ladder">The ladder's name.</param>
        /// <param name="queue">The queue's name.</param>
        /// <param name="ticket">The ticket's id.</param>
        /// <param name="cancellationToken">Stops waiting (it then throws <see cref="OperationCanceledException"/>).</param>
        /// <returns>The ticket once it is no longer waiting; <see cref="QueueTicket.Match"/> when matched.</returns>
        /// <exception cref="LadderException">The server refused a request, did not answer in time or could not be reached.</exception>
        public async Task<QueueTicket> WaitForMatchAsync(string ladder, string queue, string ticket, CancellationToken cancellationToken = default(CancellationToken))
        {
            while (true)
            {
                QueueTicket now = await GetTicketAsync(ladder, queue, ticket, MaxTicketWait, cancellationToken);
                if (now.State != TicketState.Waiting)
                {
                    return now;
                }
            }
        }

        /// <summary>Cancels a waiting ticket (cancelling it again is no error).</summary>
        /// <param name="ladder">The ladder's name.</param>
        /// <param name="queue">The queue's name.</param>
        /// <param name="ticket">The ticket's id.</param>
        /// <param name="timeout">This call's timeout instead of <see cref="Timeout"/>.</param>
        /// <param name="cancellationToken">Stops the call (it then throws <see cref="OperationCanceledException"/>).</param>
        /// <returns>The ticket, cancelled.</returns>
        /// <exception cref="LadderException">The ticket is matched or expired (<c>ticket_not_waiting</c>, 409), is another player's (403), or the server did not answer in time or could not be reached.</exception>
        public async Task<QueueTicket> CancelTicketAsync(string ladder, string queue, string ticket, TimeSpan? timeout = null, CancellationToken cancellationToken = default(CancellationToken))
        {
            return QueueTicket.Read(LadderJson.Parse(await Send("DELETE", QueuePath(ladder, queue) + "/tickets/" + Uri.EscapeDataString(ticket), null, timeout, cancellationToken)));
        }

        private static string QueuePath(string ladder, string queue)
        {
            return LadderPath(ladder) + "/queues/" + Uri.EscapeDataString(queue);
        }
    }

    /// <summary>A matchmaking ticket's state.</summary>
    public enum TicketState
    {
        /// <summary>In the queue.</summary>
        Waiting,
        /// <summary>In a match (<see cref="QueueTicket.Match"/>).</summary>
        Matched,
        /// <summary>Cancelled by its player, a game backend, or the player's erasure.</summary>
        Cancelled,
        /// <summary>Not matched within the queue's time.</summary>
        Expired,
    }

    /// <summary>A matchmaking ticket (<see cref="LadderClient.JoinQueueAsync"/>).</summary>
    public sealed class QueueTicket
    {
        /// <summary>The ticket's id.</summary>
        public string Ticket { get; private set; }

        /// <summary>The queue.</summary>
        public string Queue { get; private set; }

        /// <summary>The state.</summary>
        public TicketState State { get; private set; }

        /// <summary>The ticket's players.</summary>
        public string[] Players { get; private set; }

        /// <summary>Seconds waited so far (waiting), or until the state changed.</summary>
        public double Waited { get; private set; }

        /// <summary>The rating distance the ticket accepts now (waiting only).</summary>
        public double? Distance { get; private set; }

        /// <summary>The match, when <see cref="State"/> is <see cref="TicketState.Matched"/>; otherwise null.</summary>
        public QueueMatch Match { get; private set; }

        internal static QueueTicket Read(object json)
        {
            var o = LadderJson.Object(json, "a ticket");
            var players = new List<string>();
            foreach (var player in LadderJson.Array(o, "players"))
            {
                players.Add((string)player);
            }
            var match = LadderJson.OptionalObject(o, "match");
            return new QueueTicket
            {
                Ticket = LadderJson.String(o, "ticket"),
                Queue = LadderJson.String(o, "queue"),
                State = ReadState(LadderJson.String(o, "state")),
                Players = players.ToArray(),
                Waited = LadderJson.Double(o, "waited"),
                Distance = LadderJson.OptionalDouble(o, "distance"),
                Match = match != null ? QueueMatch.Read(match) : null,
            };
        }

        private static TicketState ReadState(string text)
        {
            switch (text)
            {
                case "waiting": return TicketState.Waiting;
                case "matched": return TicketState.Matched;
                case "cancelled": return TicketState.Cancelled;
                case "expired": return TicketState.Expired;
                default: throw new FormatException("unknown ticket state \"" + text + "\"");
            }
        }
    }

    /// <summary>What each result would give a player: their rating after a win, a draw and a loss of their side, the bits the server then stores.</summary>
    public struct RatingPreview
    {
        /// <summary>The rating after a win.</summary>
        public float Win;

        /// <summary>The rating after a draw.</summary>
        public float Draw;

        /// <summary>The rating after a loss.</summary>
        public float Loss;
    }

    /// <summary>A player of a queue's match.</summary>
    public sealed class QueueMatchPlayer
    {
        /// <summary>The player.</summary>
        public string Player { get; private set; }

        /// <summary>Their rating when matched.</summary>
        public float Rating { get; private set; }

        /// <summary>Their rating after each result (pairs and teams; null for a free-for-all).</summary>
        public RatingPreview? Preview { get; private set; }

        internal static QueueMatchPlayer Read(object json)
        {
            var o = LadderJson.Object(json, "a match's player");
            var preview = LadderJson.OptionalObject(o, "preview");
            return new QueueMatchPlayer
            {
                Player = LadderJson.String(o, "player"),
                Rating = LadderJson.Float(o, "rating"),
                Preview = preview == null ? (RatingPreview?)null : new RatingPreview { Win = LadderJson.Float(preview, "win"), Draw = LadderJson.Float(preview, "draw"), Loss = LadderJson.Float(preview, "loss") },
            };
        }
    }

    /// <summary>A match a queue made: report its game with <see cref="Id"/> and its players as matched.</summary>
    public sealed class QueueMatch
    {
        /// <summary>The match's id: the id to report the game with.</summary>
        public string Id { get; private set; }

        /// <summary>The queue that made it.</summary>
        public string Queue { get; private set; }

        /// <summary><c>pair</c>, <c>teams</c> or <c>free_for_all</c>.</summary>
        public string Mode { get; private set; }

        /// <summary>Its position in the queue's list of matches (1, 2, …).</summary>
        public long Seq { get; private set; }

        /// <summary>When it was made (UTC).</summary>
        public DateTimeOffset Time { get; private set; }

        /// <summary>Each side's players (a pair: two sides of one; teams: two; a free-for-all: one side per entrant).</summary>
        public QueueMatchPlayer[][] Sides { get; private set; }

        /// <summary>The side (index into <see cref="Sides"/>) that <paramref name="player"/> plays on, or -1.</summary>
        /// <param name="player">A player's name.</param>
        /// <returns>The side's index, or -1 when the player is not in the match.</returns>
        public int SideOf(string player)
        {
            for (int s = 0; s < Sides.Length; s++)
            {
                foreach (var p in Sides[s])
                {
                    if (p.Player == player) return s;
                }
            }
            return -1;
        }

        internal static QueueMatch Read(object json)
        {
            var o = LadderJson.Object(json, "a match");
            var sides = new List<QueueMatchPlayer[]>();
            foreach (var side in LadderJson.Array(o, "sides"))
            {
                var players = new List<QueueMatchPlayer>();
                foreach (var player in (List<object>)side)
                {
                    players.Add(QueueMatchPlayer.Read(player));
                }
                sides.Add(players.ToArray());
            }
            return new QueueMatch
            {
                Id = LadderJson.String(o, "id"),
                Queue = LadderJson.String(o, "queue"),
                Mode = LadderJson.String(o, "mode"),
                Seq = LadderJson.Long(o, "seq"),
                Time = LadderJson.Time(LadderJson.Double(o, "time")),
                Sides = sides.ToArray(),
            };
        }
    }
}
