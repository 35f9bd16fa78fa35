using System;
using System.Collections.Generic;
using System.Globalization;
using System.Text;

namespace RankingElo.Ladder
{
    /// <summary>
    /// A minimal JSON reader and writer for the ladder server's messages (no dependency on a
    /// JSON library, the same on Mono, IL2CPP and WebGL). Numbers keep their text, so a
    /// rating is read straight into a <c>float</c> from the server's shortest round-trip
    /// form: the bits the server stored.
    /// </summary>
    internal static class LadderJson
    {
        /// <summary>A number as written (read on demand as float, double or integer).</summary>
        internal sealed class Number
        {
            internal readonly string Text;

            internal Number(string text)
            {
                Text = text;
            }
        }

        internal static object Parse(string text)
        {
            int at = 0;
            object value = ReadValue(text, ref at);
            SkipSpace(text, ref at);
            if (at != text.Length)
            {
                throw new FormatException("unexpected text after the JSON value at " + at);
            }
            return value;
        }

        private static void SkipSpace(string text, ref int at)
        {
            while (at < text.Length && char.IsWhiteSpace(text[at]))
            {
                at++;
            }
        }

        private static object ReadValue(string text, ref int at)
        {
            SkipSpace(text, ref at);
            if (at >= text.Length)
            {
                throw new FormatException("unexpected end of JSON");
            }
            char c = text[at];
            if (c == '{')
            {
                var result = new Dictionary<string, object>();
                at++;
                SkipSpace(text, ref at);
                if (text[at] == '}')
                {
                    at++;
                    return result;
                }
                while (true)
                {
                    SkipSpace(text, ref at);
                    string key = ReadString(text, ref at);
                    SkipSpace(text, ref at);
                    Expect(text, ref at, ':');
                    result[key] = ReadValue(text, ref at);
                    SkipSpace(text, ref at);
                    if (text[at] == ',')
                    {
                        at++;
                        continue;
                    }
                    Expect(text, ref at, '}');
                    return result;
                }
            }
            if (c == '[')
            {
                var result = new List<object>();
                at++;
                SkipSpace(text, ref at);
                if (text[at] == ']')
                {
                    at++;
                    return result;
                }
                while (true)
                {
                    result.Add(ReadValue(text, ref at));
                    SkipSpace(text, ref at);
                    if (text[at] == ',')
                    {
                        at++;
                        continue;
                    }
                    Expect(text, ref at, ']');
                    return result;
                }
            }
            if (c == '"')
            {
                return ReadString(text, ref at);
            }
            if (Word(text, ref at, "true"))
            {
                return true;
            }
            if (Word(text, ref at, "false"))
            {
                return false;
            }
            if (Word(text, ref at, "null"))
            {
                return null;
            }
            int start = at;
            while (at < text.Length && "+-0123456789.eE".IndexOf(text[at]) >= 0)
            {
                at++;
            }
            if (at == start)
            {
                throw new FormatException("unexpected character '" + c + "' at " + at);
            }
            return new Number(text.Substring(start, at - start));
        }

        private static bool Word(string text, ref int at, string word)
        {
            if (string.CompareOrdinal(text, at, word, 0, word.Length) == 0)
            {
                at += word.Length;
                return true;
            }
            return false;
        }

        private static void Expect(string text, ref int at, char c)
        {
            if (at >= text.Length || text[at] != c)
            {
                throw new FormatException("expected '" + c + "' at " + at);
            }
            at++;
        }

        private static string ReadString(string text, ref int at)
        {
            Expect(text, ref at, '"');
            var result = new StringBuilder();
            while (at < text.Length && text[at] != '"')
            {
                char c = text[at++];
                if (c != '\\')
                {
                    result.Append(c);
                    continue;
                }
                char escaped = text[at++];
                switch (escaped)
                {
                    case 'n': result.Append('\n'); break;
                    case 't': result.Append('\t'); break;
                    case 'r': result.Append('\r'); break;
                    case 'b': result.Append('\b'); break;
                    case 'f': result.Append('\f'); break;
                    case 'u':
                        result.Append((char)int.Parse(text.Substring(at, 4), NumberStyles.HexNumber, CultureInfo.InvariantCulture));
                        at += 4;
                        break;
                    default: result.Append(escaped); break;
                }
            }
            Expect(text, ref at, '"');
            return result.ToString();
        }

        /// <summary>
        /// The text of member <paramref name="name"/> of the JSON object <paramref name="text"/>,
        /// exactly as written (a nested object kept byte for byte), or null when the member is
        /// absent or <c>null</c>.
        /// </summary>
        internal static string RawMember(string text, string name)
        {
            int at = 0;
            SkipSpace(text, ref at);
            Expect(text, ref at, '{');
            SkipSpace(text, ref at);
            if (at < text.Length && text[at] == '}')
            {
                return null;
            }
            while (true)
            {
                SkipSpace(text, ref at);
                string key = ReadString(text, ref at);
                SkipSpace(text, ref at);
                Expect(text, ref at, ':');
                SkipSpace(text, ref at);
                int start = at;
                object value = ReadValue(text, ref at);
                if (key == name)
                {
                    return value == null ? null : text.Substring(start, at - start);
                }
                SkipSpace(text, ref at);
                if (at < text.Length && text[at] == ',')
                {
                    at++;
                    continue;
                }
                Expect(text, ref at, '}');
                return null;
            }
        }

        internal static Dictionary<string, object> Object(object value, string what)
        {
            var result = value as Dictionary<string, object>;
            if (result == null)
            {
                throw new FormatException(what + " is not a JSON object");
            }
            return result;
        }

        internal static List<object> Array(Dictionary<string, object> value, string name)
        {
            object found;
            var result = value.TryGetValue(name, out found) ? found as List<object> : null;
            if (result == null)
            {
                throw new FormatException("\"" + name + "\" is not a JSON array");
            }
            return result;
        }

        private static string NumberText(Dictionary<string, object> value, string name)
        {
            object found;
            var number = value.TryGetValue(name, out found) ? found as Number : null;
            if (number == null)
            {
                throw new FormatException("\"" + name + "\" is not a number");
            }
            return number.Text;
        }

        internal static float Float(Dictionary<string, object> value, string name)
        {
            return float.Parse(NumberText(value, name), NumberStyles.Float, CultureInfo.InvariantCulture);
        }

        internal static double Double(Dictionary<string, object> value, string name)
        {
            return double.Parse(NumberText(value, name), NumberStyles.Float, CultureInfo.InvariantCulture);
        }

        internal static long Long(Dictionary<string, object> value, string name)
        {
            return long.Parse(NumberText(value, name), NumberStyles.Integer, CultureInfo.InvariantCulture);
        }

        /// <summary>A member that is an object, or null when it is absent or <c>null</c>.</summary>
        internal static Dictionary<string, object> OptionalObject(Dictionary<string, object> value, string name)
        {
            object found;
            return value.TryGetValue(name, out found) && found != null ? Object(found, "\"" + name + "\"") : null;
        }

        /// <summary>A number, or null when the member is absent or <c>null</c>.</summary>
        internal static double? OptionalDouble(Dictionary<string, object> value, string name)
        {
            object found;
            if (!value.TryGetValue(name, out found) || found == null)
            {
                return null;
            }
            return Double(value, name);
        }

        /// <summary>A whole number, or null when the member is absent or <c>null</c>.</summary>
        internal static long? OptionalLong(Dictionary<string, object> value, string name)
        {
            object found;
            if (!value.TryGetValue(name, out found) || found == null)
            {
                return null;
            }
            return Long(value, name);
        }

        private static readonly DateTimeOffset UnixEpoch = new DateTimeOffset(1970, 1, 1, 0, 0, 0, TimeSpan.Zero);

        /// <summary>The server's Unix seconds (UTC) as a time, to the tick (100 ns).</summary>
        internal static DateTimeOffset Time(double unixSeconds)
        {
            return UnixEpoch.AddTicks((long)Math.Round(unixSeconds * TimeSpan.TicksPerSecond));
        }

        /// <summary>A member in Unix seconds as a time, or null when it is absent or <c>null</c>.</summary>
        internal static DateTimeOffset? OptionalTime(Dictionary<string, object> value, string name)
        {
            double? seconds = OptionalDouble(value, name);
            return seconds.HasValue ? Time(seconds.Value) : (DateTimeOffset?)null;
        }

        internal static bool Bool(Dictionary<string, object> value, string name)
        {
            object found;
            return value.TryGetValue(name, out found) && found is bool && (bool)found;
        }

        internal static string String(Dictionary<string, object> value, string name)
        {
            object found;
            return value.TryGetValue(name, out found) ? found as string : null;
        }

        internal static void Quote(StringBuilder into, string text)
        {
            into.Append('"');
            foreach (char c in text)
            {
                if (c == '"' || c == '\\')
                {
                    into.Append('\\').Append(c);
                }
                else if (c < ' ')
                {
                    into.Append("\\u").Append(((int)c).ToString("x4", CultureInfo.InvariantCulture));
                }
                else
                {
                    into.Append(c);
                }
            }
            into.Append('"');
        }

        internal static void Names(StringBuilder into, string[] names)
        {
            into.Append('[');
            for (int i = 0; i < names.Length; i++)
            {
                if (i > 0)
                {
                    into.Append(',');
                }
                Quote(into, names[i]);
            }
            into.Append(']');
        }
    }
}
