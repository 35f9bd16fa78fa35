using System.Globalization;
using System.Text;

namespace RankingElo
{
    /// <summary>A minimal JSON writer for <see cref="EloSettings"/> (no dependency on a JSON library).</summary>
    internal sealed class Json
    {
        private readonly StringBuilder text = new StringBuilder();
        private bool needsComma;

        internal Json BeginObject()
        {
            Separator();
            text.Append('{');
            needsComma = false;
            return this;
        }

        internal Json EndObject()
        {
            text.Append('}');
            needsComma = true;
            return this;
        }

        internal Json BeginArray(string name)
        {
            Name(name);
            text.Append('[');
            needsComma = false;
            return this;
        }

        internal Json EndArray()
        {
            text.Append(']');
            needsComma = true;
            return this;
        }

        internal Json Name(string name)
        {
            Separator();
            String(name);
            text.Append(':');
            needsComma = false;
            return this;
        }

        internal Json Field(string name, double value)
        {
            Name(name);
            text.Append(value.ToString("R", CultureInfo.InvariantCulture));
            needsComma = true;
            return this;
        }

        internal Json Field(string name, double? value)
        {
            if (value.HasValue) Field(name, value.Value);
            return this;
        }

        internal Json Field(string name, bool value)
        {
            Name(name);
            text.Append(value ? "true" : "false");
            needsComma = true;
            return this;
        }

        internal Json Field(string name, string value)
        {
            Name(name);
            String(value);
            needsComma = true;
            return this;
        }

        private void Separator()
        {
            if (needsComma) text.Append(',');
        }

        private void String(string value)
        {
            text.Append('"');
            foreach (char c in value)
            {
                switch (c)
                {
                    case '"': text.Append("\\\""); break;
                    case '\\': text.Append("\\\\"); break;
                    default:
                        if (c < ' ') text.AppendFormat(CultureInfo.InvariantCulture, "\\u{0:x4}", (int)c);
                        else text.Append(c);
                        break;
                }
            }
            text.Append('"');
        }

        public override string ToString()
        {
            return text.ToString();
        }
    }
}
