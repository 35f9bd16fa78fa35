using System;
using System.Collections.Generic;
using System.Globalization;
using System.Text;
using System.Threading;
using System.Threading.Tasks;

namespace RankingElo.Ladder
{
    /// <summary>Player tags (<c>region: eu</c>) and each tag's board.</summary>
    public sealed partial class LadderClient
    {
        /// <summary>
        /// A page of a tag's board (<c>GET …/leaderboard?tag=key:value</c>): the players holding
        /// the tag, best first, ranked among themselves (rank 1 is the tag's best). A tag nobody
        /// holds has an empty board.
        /// </summary>
        /// <param name="ladder">The ladder's name.</param>
        /// <param name="key">The tag's key (<c>region</c>).</param>
        /// <param name="value">The tag's value (<c>eu</c>).</param>
        /// <param name="limit">How many lines (1 to 1000).</param>
        /// <param name="offset">How many to skip from the top.</param>
        /// <param name="includeProvisional">Also the provisional players (the ladder's <c>provisional_games</c>), ranked among everybody and marked <see cref="LeaderboardEntry.Provisional"/>.</param>
        /// <param name="timeout">This call's timeout instead of <see cref="Timeout"/>.</param>
        /// <param name="cancellationToken">Stops the call (it then throws <see cref="OperationCanceledException"/>).</param>
        /// <returns>The lines.</returns>
        /// <exception cref="LadderException">The server refused the request (a key or value out of form: 400 or 422), did not answer in time or could not be reached.</exception>
        public async Task<LeaderboardEntry[]> GetTagLeaderboardAsync(string ladder, string key, string value, int limit = 100, int offset = 0, bool includeProvisional = false, TimeSpan? timeout = null, CancellationToken cancellationToken = default(CancellationToken))
        {
            string query = TagQuery(key, value, includeProvisional) + "&limit=" + limit.ToString(CultureInfo.InvariantCulture) + "&offset=" + offset.ToString(CultureInfo.InvariantCulture);
            return LeaderboardEntry.ReadAll(LadderJson.Parse(await Send("GET", LadderPath(ladder) + "/leaderboard" + query, null, timeout, cancellationToken)));
        }

        /// <summary>
        /// A tag's board around a player who holds the tag: <paramref name="limit"/> lines
        /// centred on them, with their ranks within the tag, read in one snapshot.
        /// </summary>
        /// <param name="ladder">The ladder's name.</param>
        /// <param name="key">The tag's key.</param>
        /// <param name="value">The tag's value.</param>
        /// <param name="player">The player in the middle.</param>
        /// <param name="limit">How many lines (1 to 1000; 21 unless given).</param>
        /// <param name="includeProvisional">Also the provisional players.</param>
        /// <param name="timeout">This call's timeout instead of <see cref="Timeout"/>.</param>
        /// <param name="cancellationToken">Stops the call (it then throws <see cref="OperationCanceledException"/>).</param>
        /// <returns>The lines, or an empty array for a player who has not played in the ladder yet.</returns>
        /// <exception cref="LadderException">The server refused the request (the player does not hold the tag: <c>not_tagged</c>, 409; a provisional player: <c>provisional_player</c>, 409), did not answer in time or could not be reached.</exception>
        public async Task<LeaderboardEntry[]> GetTagLeaderboardAroundAsync(string ladder, string key, string value, string player, int limit = 21, bool includeProvisional = false, TimeSpan? timeout = null, CancellationToken cancellationToken = default(CancellationToken))
        {
            string query = TagQuery(key, value, includeProvisional) + "&around=" + Uri.EscapeDataString(player) + "&limit=" + limit.ToString(CultureInfo.InvariantCulture);
            try
            {
                return LeaderboardEntry.ReadAll(LadderJson.Parse(await Send("GET", LadderPath(ladder) + "/leaderboard" + query, null, timeout, cancellationToken)));
            }
            catch (LadderException error)
            {
                if (error.Code == "unknown_player")
                {
                    return new LeaderboardEntry[0];
                }
                throw;
            }
        }

        /// <summary>A player's tags, key to value (<c>GET …/players/{player}/tags</c>).</summary>
        /// <param name="ladder">The ladder's name.</param>
        /// <param name="player">The player.</param>
        /// <param name="timeout">This call's timeout instead of <see cref="Timeout"/>.</param>
        /// <param name="cancellationToken">Stops the call (it then throws <see cref="OperationCanceledException"/>).</param>
        /// <returns>The tags; empty for a player who has not played in the ladder yet.</returns>
        /// <exception cref="LadderException">The server refused the request, did not answer in time or could not be reached.</exception>
        public async Task<Dictionary<string, string>> GetPlayerTagsAsync(string ladder, string player, TimeSpan? timeout = null, CancellationToken cancellationToken = default(CancellationToken))
        {
            try
            {
                return ReadTags(await Send("GET", LadderPath(ladder) + "/players/" + Uri.EscapeDataString(player) + "/tags", null, timeout, cancellationToken));
            }
            catch (LadderException error)
            {
                if (error.Code == "unknown_player")
                {
                    return new Dictionary<string, string>();
                }
                throw;
            }
        }

        /// <summary>
        /// Sets a player's tags (<c>PUT …/players/{player}/tags</c>, an admin key): each key given
        /// takes its value, a <c>null</c> value removes the key, the player's other tags stay. A
        /// player has one value per key, so a new region takes them off the old region's board.
        /// </summary>
        /// <param name="ladder">The ladder's name.</param>
        /// <param name="player">A player who has played in the ladder.</param>
        /// <param name="changes">Keys (<c>a-z</c>, <c>0-9</c>, <c>_</c>, up to 32) to values (<c>A-Z a-z 0-9 - _ .</c>, up to 64) or null.</param>
        /// <param name="timeout">This call's timeout instead of <see cref="Timeout"/>.</param>
        /// <param name="cancellationToken">Stops the call (it then throws <see cref="OperationCanceledException"/>).</param>
        /// <returns>The player's tags after the change.</returns>
        /// <exception cref="ArgumentNullException"><paramref name="changes"/> is null.</exception>
        /// <exception cref="LadderException">The server refused the request (not an admin key: 403; an unknown player: 404; a key or value out of form: 422 <c>invalid_tag</c>; more than 16 keys: 422 <c>too_many_tags</c>), did not answer in time or could not be reached.</exception>
        public async Task<Dictionary<string, string>> SetPlayerTagsAsync(string ladder, string player, IDictionary<string, string> changes, TimeSpan? timeout = null, CancellationToken cancellationToken = default(CancellationToken))
        {
            if (changes == null) throw new ArgumentNullException("changes");
            var body = new StringBuilder("{");
            foreach (KeyValuePair<string, string> change in changes)
            {
                if (body.Length > 1)
                {
                    body.Append(',');
                }
                LadderJson.Quote(body, change.Key);
                body.Append(':');
                if (change.Value == null)
                {
                    body.Append("null");
                }
                else
                {
                    LadderJson.Quote(body, change.Value);
                }
            }
            body.Append('}');
            return ReadTags(await Send("PUT", LadderPath(ladder) + "/players/" + Uri.EscapeDataString(player) + "/tags", body.ToString(), timeout, cancellationToken));
        }

        private static string TagQuery(string key, string value, bool includeProvisional)
        {
            if (key == null) throw new ArgumentNullException("key");
            if (value == null) throw new ArgumentNullException("value");
            return "?tag=" + Uri.EscapeDataString(key + ":" + value) + ProvisionalQuery(includeProvisional);
        }

        private static Dictionary<string, string> ReadTags(string text)
        {
            var tags = new Dictionary<string, string>();
            var found = LadderJson.OptionalObject(LadderJson.Object(LadderJson.Parse(text), "a player's tags"), "tags");
            if (found != null)
            {
                foreach (KeyValuePair<string, object> tag in found)
                {
                    tags[tag.Key] = tag.Value as string;
                }
            }
            return tags;
        }
    }
}
