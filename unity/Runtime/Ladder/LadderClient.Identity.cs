using System;
using System.Threading;
using System.Threading.Tasks;

namespace RankingElo.Ladder
{
    /// <summary>Who the ladder server takes this client for.</summary>
    public sealed partial class LadderClient
    {
        /// <summary>
        /// Who the server takes this client's key or token for (<c>GET /v1/keys/me</c>): for a
        /// player's token, the player it acts as, which is how a game client learns its player's
        /// name on the ladder after signing in (the server reads it from the token's claim, which
        /// the game need not parse); for an API key, its id, scope and ladder. A forged, expired
        /// or unknown credential is refused here, so this is also the sign-in check.
        /// </summary>
        /// <param name="timeout">This call's timeout instead of <see cref="Timeout"/>.</param>
        /// <param name="cancellationToken">Stops the call (it then throws <see cref="OperationCanceledException"/>).</param>
        /// <returns>The identity.</returns>
        /// <exception cref="LadderException">The server refused the credential (401), did not answer in time or could not be reached.</exception>
        public async Task<LadderIdentity> GetIdentityAsync(TimeSpan? timeout = null, CancellationToken cancellationToken = default(CancellationToken))
        {
            return LadderIdentity.Read(LadderJson.Parse(await Send("GET", "/v1/keys/me", null, timeout, cancellationToken)));
        }
    }

    /// <summary>What the server takes a client's key or token for (<see cref="LadderClient.GetIdentityAsync"/>).</summary>
    public sealed class LadderIdentity
    {
        /// <summary><c>player</c> for a player's token; <c>read</c>, <c>report</c> or <c>admin</c> for an API key.</summary>
        public string Scope { get; private set; }

        /// <summary>The player a token acts as; null for an API key.</summary>
        public string Player { get; private set; }

        /// <summary>An API key's public id; null for a token.</summary>
        public string KeyId { get; private set; }

        /// <summary>The one ladder an API key is limited to; null when it serves every ladder, and for a token.</summary>
        public string Ladder { get; private set; }

        internal static LadderIdentity Read(object json)
        {
            var o = LadderJson.Object(json, "an identity");
            return new LadderIdentity
            {
                Scope = LadderJson.String(o, "scope"),
                Player = LadderJson.String(o, "player"),
                KeyId = LadderJson.String(o, "id"),
                Ladder = LadderJson.String(o, "ladder"),
            };
        }
    }
}
