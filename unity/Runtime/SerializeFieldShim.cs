#if !UNITY_5_3_OR_NEWER
using System;

namespace RankingElo
{
    /// <summary>
    /// Outside Unity (the Mono build the tests use), stands for <c>UnityEngine.SerializeField</c>,
    /// which marks the private fields Unity serializes: the settings types carry it so that
    /// the Inspector, assets and <c>JsonUtility</c> store them.
    /// </summary>
    [AttributeUsage(AttributeTargets.Field)]
    internal sealed class SerializeFieldAttribute : Attribute
    {
    }
}
#endif
