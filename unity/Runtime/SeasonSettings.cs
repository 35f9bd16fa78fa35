using System;
#if UNITY_5_3_OR_NEWER
using UnityEngine;
#endif

namespace RankingElo
{
    /// <summary>What season resets and decay pull ratings toward.</summary>
    public enum ResetAnchor
    {
        /// <summary>The settings' initial rating.</summary>
        InitialRating,
        /// <summary>The pool's mean rating at the time of the reset or decay.</summary>
        PoolMean,
    }

    /// <summary>
    /// The soft reset at a season's end: <c>R' = anchor + (R - anchor) * keep</c>
    /// (serializable). A league's <see cref="League.SeasonKeep"/> overrides
    /// <see cref="Keep"/> for its players.
    /// </summary>
    [Serializable]
    public sealed class SeasonReset
    {
        [SerializeField] private ResetAnchor anchor;
        [Range(0f, 1f)] [SerializeField] private double keep = 0.5;

        /// <summary>What ratings are pulled toward (also where decay stops).</summary>
        public ResetAnchor Anchor
        {
            get { return anchor; }
            set { anchor = value; }
        }

        /// <summary>Share of the distance to the anchor a rating keeps, 0 (everybody back to the anchor) to 1 (no reset). Default 0.5.</summary>
        public double Keep
        {
            get { return keep; }
            set { keep = value; }
        }

        internal void Write(Json json)
        {
            json.Name("season_reset").BeginObject()
                .Field("anchor", anchor == ResetAnchor.PoolMean ? "pool_mean" : "initial_rating")
                .Field("keep", keep)
                .EndObject();
        }
    }

    /// <summary>
    /// Inactivity decay (serializable): players holding at least <see cref="MinLeague"/>
    /// without a match for longer than <see cref="GraceDays"/> lose <see cref="PointsPerDay"/>
    /// per further day down to the stop, the highest of the anchor, <see cref="Floor"/>,
    /// <see cref="MinRating"/> and the lower bound of <see cref="MinLeague"/>, never past it
    /// (after rounding too), so calling <c>ApplyDecay</c> daily or once gives the same ratings.
    /// Off while <see cref="PointsPerDay"/> is 0.
    /// </summary>
    [Serializable]
    public sealed class DecaySettings
    {
        [Min(0f)] [SerializeField] private double graceDays = 28;
        [Min(0f)] [SerializeField] private double pointsPerDay;
        [SerializeField] private bool hasMinRating;
        [SerializeField] private float minRating;
        [SerializeField] private bool hasMinLeague;
        [SerializeField] private int minLeague;
        [SerializeField] private bool hasFloor;
        [SerializeField] private float floor;

        /// <summary>Days without a match before decay starts (default 28).</summary>
        public double GraceDays
        {
            get { return graceDays; }
            set { graceDays = value; }
        }

        /// <summary>Rating lost per day of inactivity past the grace period; 0 turns decay off.</summary>
        public double PointsPerDay
        {
            get { return pointsPerDay; }
            set { pointsPerDay = value; }
        }

        /// <summary>Decay stops at this rating, as at a floor (a rating at or below it does not decay); null for no such stop.</summary>
        public float? MinRating
        {
            get { return hasMinRating ? minRating : (float?)null; }
            set
            {
                hasMinRating = value.HasValue;
                minRating = value.GetValueOrDefault();
            }
        }

        /// <summary>Only players holding at least this league (0 = lowest) decay, and decay stops at its lower bound (league 0 has none); null for any league.</summary>
        public int? MinLeague
        {
            get { return hasMinLeague ? minLeague : (int?)null; }
            set
            {
                hasMinLeague = value.HasValue;
                minLeague = value.GetValueOrDefault();
            }
        }

        /// <summary>Decay never takes a rating below this; null when the anchor is the only stop.</summary>
        public float? Floor
        {
            get { return hasFloor ? floor : (float?)null; }
            set
            {
                hasFloor = value.HasValue;
                floor = value.GetValueOrDefault();
            }
        }

        internal void Write(Json json)
        {
            json.Name("decay").BeginObject()
                .Field("grace_days", graceDays)
                .Field("points_per_day", pointsPerDay)
                .Field("min_rating", MinRating.HasValue ? (double?)MinRating.Value : null)
                .Field("min_league", MinLeague.HasValue ? (double?)MinLeague.Value : null)
                .Field("floor", Floor.HasValue ? (double?)Floor.Value : null)
                .EndObject();
        }
    }
}
