//! Makes symbols of a WebAssembly object file local, which `llvm-objcopy` cannot do for
//! WebAssembly (`archive.rs` needs it for the WebGL library).
//!
//! A relocatable WebAssembly object keeps its symbol table in the `linking` custom section
//! (tool-conventions, `Linking.md`): subsection 8 lists every symbol as a kind, a flags
//! word (LEB128) and the kind's fields. Setting `WASM_SYM_BINDING_LOCAL` in the flags of a
//! defined symbol makes it invisible to other objects at the final link, as a `static`
//! function is. The flags are rewritten in place with the same encoded length (a padded
//! LEB128 is valid), so no offset in the file moves.

/// `WASM_SYM_BINDING_WEAK`.
const WEAK: u32 = 0x1;
/// `WASM_SYM_BINDING_LOCAL`.
const LOCAL: u32 = 0x2;
/// `WASM_SYM_VISIBILITY_HIDDEN`.
const HIDDEN: u32 = 0x4;
/// `WASM_SYM_UNDEFINED`.
const UNDEFINED: u32 = 0x10;
/// `WASM_SYM_EXPORTED`.
const EXPORTED: u32 = 0x20;
/// `WASM_SYM_EXPLICIT_NAME`.
const EXPLICIT_NAME: u32 = 0x40;

/// Symbol kinds (`WASM_SYMBOL_TYPE_*`).
const KIND_FUNCTION: u8 = 0;
const KIND_DATA: u8 = 1;
const KIND_GLOBAL: u8 = 2;
const KIND_SECTION: u8 = 3;
const KIND_TAG: u8 = 4;
const KIND_TABLE: u8 = 5;

/// The `linking` section's symbol table subsection.
const SYMBOL_TABLE: u8 = 8;

/// A reader over the object's bytes.
struct Reader<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl Reader<'_> {
    fn byte(&mut self) -> Result<u8, String> {
        let b = *self.bytes.get(self.at).ok_or("unexpected end of the WebAssembly object")?;
        self.at += 1;
        Ok(b)
    }

    /// An unsigned LEB128 (at most 32 bits); returns the value and its encoded length.
    fn leb(&mut self) -> Result<(u32, usize), String> {
        let start = self.at;
        let mut value: u64 = 0;
        let mut shift = 0;
        loop {
            let b = self.byte()?;
            value |= u64::from(b & 0x7f) << shift;
            if b & 0x80 == 0 {
                break;
            }
            shift += 7;
            if shift > 35 {
                return Err("LEB128 too long".to_owned());
            }
        }
        let value = u32::try_from(value).map_err(|_| "LEB128 over 32 bits".to_owned())?;
        Ok((value, self.at - start))
    }

    fn name(&mut self) -> Result<String, String> {
        let (len, _) = self.leb()?;
        let end = self.at + len as usize;
        let text = self.bytes.get(self.at..end).ok_or("symbol name past the end")?;
        self.at = end;
        Ok(String::from_utf8_lossy(text).into_owned())
    }
}

/// Writes `value` as a LEB128 of exactly `len` bytes over `out`.
fn write_padded_leb(out: &mut [u8], mut value: u32, len: usize) -> Result<(), String> {
    for (i, byte) in out.iter_mut().enumerate().take(len) {
        let mut b = (value & 0x7f) as u8;
        value >>= 7;
        if i + 1 < len {
            b |= 0x80;
        }
        *byte = b;
    }
    if value == 0 {
        Ok(())
    } else {
        Err("the new flags do not fit the old encoding".to_owned())
    }
}

/// Returns `object` with every defined, non-local symbol whose name `keep` rejects made
/// local (and hidden, and no longer exported), and how many were changed.
pub fn localize(object: &[u8], keep: impl Fn(&str) -> bool) -> Result<(Vec<u8>, usize), String> {
    if object.get(..8) != Some(b"\0asm\x01\0\0\0") {
        return Err("not a WebAssembly object (version 1)".to_owned());
    }
    let mut out = object.to_vec();
    let mut reader = Reader { bytes: object, at: 8 };
    let mut changed = 0;
    let mut found_table = false;
    while reader.at < object.len() {
        let id = reader.byte()?;
        let (size, _) = reader.leb()?;
        let end = reader.at + size as usize;
        if end > object.len() {
            return Err("a section runs past the end".to_owned());
        }
        if id == 0 && reader.name()? == "linking" {
            let (version, _) = reader.leb()?;
            if version != 2 {
                return Err(format!("linking section version {version} (expected 2)"));
            }
            while reader.at < end {
                let kind = reader.byte()?;
                let (len, _) = reader.leb()?;
                let sub_end = reader.at + len as usize;
                if kind == SYMBOL_TABLE {
                    found_table = true;
                    changed += localize_table(&mut reader, &mut out, &keep)?;
                }
                reader.at = sub_end;
            }
        }
        reader.at = end;
    }
    if !found_table {
        return Err("no symbol table in the object's linking section".to_owned());
    }
    Ok((out, changed))
}

fn localize_table(reader: &mut Reader<'_>, out: &mut [u8], keep: &impl Fn(&str) -> bool) -> Result<usize, String> {
    let (count, _) = reader.leb()?;
    let mut changed = 0;
    for _ in 0..count {
        let kind = reader.byte()?;
        let flags_at = reader.at;
        let (flags, flags_len) = reader.leb()?;
        let defined = flags & UNDEFINED == 0;
        let name = match kind {
            KIND_FUNCTION | KIND_GLOBAL | KIND_TAG | KIND_TABLE => {
                reader.leb()?;
                if defined || flags & EXPLICIT_NAME != 0 {
                    Some(reader.name()?)
                } else {
                    None
                }
            }
            KIND_DATA => {
                let name = reader.name()?;
                if defined {
                    reader.leb()?;
                    reader.leb()?;
                    reader.leb()?;
                }
                Some(name)
            }
            KIND_SECTION => {
                reader.leb()?;
                None
            }
            other => return Err(format!("unknown symbol kind {other}")),
        };
        let Some(name) = name else { continue };
        if defined && flags & LOCAL == 0 && kind != KIND_SECTION && !keep(&name) {
            let new_flags = (flags | LOCAL | HIDDEN) & !(EXPORTED | WEAK);
            write_padded_leb(&mut out[flags_at..flags_at + flags_len], new_flags, flags_len)?;
            changed += 1;
        }
    }
    Ok(changed)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A minimal object: a `linking` section whose symbol table has a defined function
    /// `f`, a defined function `elo_g`, an undefined function and a defined data symbol.
    fn object() -> Vec<u8> {
        let mut table = vec![4u8];
        table.extend([KIND_FUNCTION, 0x00, 0x00, 1, b'f']);
        table.extend([KIND_FUNCTION, 0x00, 0x01, 5, b'e', b'l', b'o', b'_', b'g']);
        table.extend([KIND_FUNCTION, 0x10, 0x02]);
        table.extend([KIND_DATA, 0x80, 0x01, 1, b'd', 0, 0, 4]);
        let mut linking = vec![7u8];
        linking.extend(b"linking");
        linking.push(2);
        linking.push(SYMBOL_TABLE);
        linking.push(u8::try_from(table.len()).unwrap());
        linking.extend(table);
        let mut object = b"\0asm\x01\0\0\0".to_vec();
        object.push(0);
        object.push(u8::try_from(linking.len()).unwrap());
        object.extend(linking);
        object
    }

    #[test]
    fn localizes_what_it_must_and_nothing_moves() {
        let before = object();
        let (after, changed) = localize(&before, |n| n.starts_with("elo_")).unwrap();
        assert_eq!(changed, 2);
        assert_eq!(after.len(), before.len());
        // `f`: flags 0x00 -> LOCAL | HIDDEN.
        let f = before.windows(5).position(|w| w == [KIND_FUNCTION, 0x00, 0x00, 1, b'f']).unwrap();
        assert_eq!(after[f + 1], 0x06);
        // `elo_g` untouched; `d` (a two-byte flags word, NO_STRIP) keeps its length.
        let g = before.windows(4).position(|w| w == [KIND_FUNCTION, 0x00, 0x01, 5]).unwrap();
        assert_eq!(after[g + 1], 0x00);
        let d = before.windows(4).position(|w| w == [KIND_DATA, 0x80, 0x01, 1]).unwrap();
        assert_eq!(&after[d + 1..d + 3], &[0x86, 0x01]);
        // Idempotent.
        assert_eq!(localize(&after, |n| n.starts_with("elo_")).unwrap().1, 0);
    }

    #[test]
    fn refuses_what_it_cannot_read() {
        assert!(localize(b"not wasm", |_| true).is_err());
        let mut truncated = object();
        truncated.truncate(truncated.len() - 3);
        assert!(localize(&truncated, |_| true).is_err());
    }
}
