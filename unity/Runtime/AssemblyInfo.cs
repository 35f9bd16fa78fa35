using System.Runtime.CompilerServices;

// The Edit Mode tests check the generated native declarations against the public API.
[assembly: InternalsVisibleTo("RankingElo.Tests.Editor")]

// The Editor's "Tools > Ranking ELO > Check Native Library" uses the runtime's own check.
[assembly: InternalsVisibleTo("RankingElo.Editor")]
