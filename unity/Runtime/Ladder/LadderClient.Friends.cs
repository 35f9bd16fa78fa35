using System;
using System.Collections.Generic;
using System.Text;
using System.Threading;
using System.Threading.Tasks;

namespace RankingElo.Ladder
{
    /// <summary>A friends board: chosen players' lines of the leaderboard.</summary>
    public sealed partial class LadderClient
    {
        /// <summary>The most players one <see cref="GetLeaderboardOfAsync"/> names: 1,000.</summary>
        public const int MaxPlayersOf = 1000;

        /// <summary>
        /// The leaderboard lines of <paramref name="players"/> (a friends list), best first, each
        /// with the player's exact rank on the whole board, read in one snapshot
        /// (<c>POST /v1/ladders/{ladder}/leaderboard/of</c>; a player's token may ask too).
        /// </summary>
        /// <param name="ladder">The ladder's name.</param>
        /// <param name="players">1 to 1,000 player names (repeats count once).</param>
        /// <param name="includeProvisional">Ranks on the board with the provisional players (then they are among <see cref="PlayersBoard.Entries"/>, marked, and <see cref="PlayersBoard.Provisional"/> is empty).</param>
        /// <param name="timeout">This call's timeout instead of <see cref="Timeout"/>.</param>
        /// <param name="cancellationToken">Stops the call (it then throws <see cref="OperationCanceledException"/>).</param>
        /// <returns>The lines, the names the ladder has no player for, and the provisional players named (who are on no board yet).</returns>
        /// <exception cref="ArgumentException">No names, or more than <see cref="MaxPlayersOf"/>.</exception>
        /// <exception cref="LadderException">The server refused the request (a bad name: 422), did not answer in time or could not be reached.</exception>
        public async Task<PlayersBoard> GetLeaderboardOfAsync(string ladder, IList<string> players, bool includeProvisional = false, TimeSpan? timeout = null, CancellationToken cancellationToken = default(CancellationToken))
        {
            if (players == null) throw new ArgumentNullException("players");
            if (players.Count == 0 || players.Count > MaxPlayersOf) throw new ArgumentException("name 1 to " + MaxPlayersOf + " players (got " + players.Count + ")", "players");
            var names = new string[players.Count];
            players.CopyTo(names, 0);
            var body = new StringBuilder("{\"players\":");
            LadderJson.Names(body, names);
            body.Append('}');
            return PlayersBoard.Read(LadderJson.Parse(await Send("POST", LadderPath(ladder) + "/leaderboard/of" + (includeProvisional ? "?provisional=include" : ""), body.ToString(), timeout, cancellationToken)));
        }
    }

    /// <summary>Chosen players' leaderboard lines (<see cref="LadderClient.GetLeaderboardOfAsync"/>).</summary>
    public sealed class PlayersBoard
    {
        /// <summary>The players' lines, best first, each with the rank on the whole board.</summary>
        public LeaderboardEntry[] Entries { get; private set; }

        /// <summary>The names the ladder has no player for (they have not played there yet), in the order asked.</summary>
        public string[] Unknown { get; private set; }

        /// <summary>The named players who are provisional (too few games for the board yet), best first; empty when the ladder has none.</summary>
        public string[] Provisional { get; private set; }

        internal static PlayersBoard Read(object json)
        {
            var o = LadderJson.Object(json, "a players board");
            return new PlayersBoard { Entries = LeaderboardEntry.ReadAll(json), Unknown = Names(o, "unknown"), Provisional = o.ContainsKey("provisional") ? Names(o, "provisional") : new string[0] };
        }

        private static string[] Names(Dictionary<string, object> o, string field)
        {
            var names = new List<string>();
            foreach (var name in LadderJson.Array(o, field))
            {
                names.Add((string)name);
            }
            return names.ToArray();
        }
    }
}
