using System.Runtime.CompilerServices;

// The Edit Mode tests check the generated native declarations against the public API.
[assembly: InternalsVisibleTo("RankingElo.Tests.Editor")]
