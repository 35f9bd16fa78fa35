#!/usr/bin/env python3
"""Runs a Mach-O program for macOS or iOS (arm64 or x86_64) on Linux, in the Unicorn CPU
emulator, with the engine either linked into it (the iOS static libraries) or loaded beside
it from the shipped macOS dylib, so that `cargo xtask test` can run the project's C test and
vector replay on the Apple binaries' own machine code.

What is real: the machine code of the program and of the engine, as Apple's CPUs would run
it (instruction set, calling convention, the engine's arithmetic), and the link: every import
is bound by name as dyld would bind it. What stands in for Apple's system: this file. It maps
each image at its preferred address (no ASLR slide, so no rebasing), binds the engine's
exports into the program, and serves the program's and the engine's libSystem imports in
Python: the C library functions the tests call (stdio, strings, memory, numbers), files
through the host's file system (with Darwin's flags, errno values and `struct stat`), mutexes
and semaphores as no-ops (one thread), thread-local variables (`__tlv_bootstrap`), and
randomness. An import nothing here serves stops the run with its name. A panic that unwinds
cannot run here (`_Unwind_*` stops the run); the tests cause none.

needs: pip install unicorn lief
usage: darwin_run.py [--library LIB.dylib] PROGRAM [ARGS...]   (thin Mach-O files)
"""
import argparse
import fractions
import os
import struct
import sys

import lief
from unicorn import UC_ARCH_ARM64, UC_ARCH_X86, UC_HOOK_CODE, UC_MODE_64, UC_MODE_ARM, UC_PROT_ALL, Uc, UcError
from unicorn import arm64_const as A
from unicorn import x86_const as X

lief.logging.disable()

PAGE = 0x1000  # unicorn maps 4 KiB pages; Mach-O segments are aligned to 4 or 16 KiB
TRAPS = 0x7000_0000_0000
TRAP_SIZE = 0x10_0000
RETURN = TRAPS + TRAP_SIZE - 0x100
HEAP = 0x6000_0000_0000
HEAP_SIZE = 512 << 20
STACK = 0x5000_0000_0000
STACK_SIZE = 16 << 20

# Darwin's numbers where they differ from Linux.
DARWIN_ERRNO = {2: 2, 13: 13, 17: 17, 20: 20, 21: 21, 22: 22, 28: 28, 18: 18, 9: 9, 1: 1, 16: 16, 24: 24, 30: 30,
                40: 62, 36: 63, 39: 66, 11: 35, 95: 45}
O_FLAGS = [(0x1, os.O_WRONLY), (0x2, os.O_RDWR), (0x4, os.O_NONBLOCK), (0x8, os.O_APPEND), (0x200, os.O_CREAT),
           (0x400, os.O_TRUNC), (0x800, os.O_EXCL), (0x100, os.O_NOFOLLOW), (0x100000, os.O_DIRECTORY),
           (0x1000000, os.O_CLOEXEC)]
AT_FDCWD = -2
AT_SYMLINK_NOFOLLOW = 0x20
# Imports that are variables, not functions: bound to memory with these contents.
DATA_IMPORTS = {"___stdinp": 1, "___stdoutp": 2, "___stderrp": 3, "___stack_chk_guard": 0x2A2A2A2A}


class Stop(Exception):
    """The program ended (exit, abort, or an import that cannot be served)."""

    def __init__(self, status, why=""):
        super().__init__(why)
        self.status = status
        self.why = why


def page_align(value, size=PAGE):
    return (value + size - 1) & ~(size - 1)


class Image:
    """One Mach-O image mapped at its preferred address."""

    def __init__(self, machine, path, index):
        fat = lief.MachO.parse(path)
        if fat is None or fat.size != 1:
            raise SystemExit(f"{path}: not a thin Mach-O file")
        self.binary = fat.at(0)
        self.path = path
        self.index = index
        raw = open(path, "rb").read()
        for segment in self.binary.segments:
            if segment.name == "__PAGEZERO" or segment.virtual_size == 0:
                continue
            start = segment.virtual_address & ~(PAGE - 1)
            end = page_align(segment.virtual_address + segment.virtual_size)
            machine.map(start, end - start, f"{os.path.basename(path)} {segment.name}")
            data = raw[segment.file_offset:segment.file_offset + segment.file_size]
            machine.uc.mem_write(segment.virtual_address, bytes(data))
        base = self.binary.imagebase
        self.exports = {symbol.name: base + symbol.value for symbol in self.binary.exported_symbols}
        kinds = lief.MachO.Section.TYPE
        self.tlv_template = [s for s in self.binary.sections if s.type in (kinds.THREAD_LOCAL_REGULAR, kinds.THREAD_LOCAL_ZEROFILL)]
        self.tlv_block = None
        for section in self.binary.sections:
            if section.type == kinds.THREAD_LOCAL_VARIABLES:
                # Each descriptor is {thunk, key, offset}: the key names this image.
                for at in range(section.virtual_address, section.virtual_address + section.size, 24):
                    machine.uc.mem_write(at + 8, struct.pack("<Q", index))

    def main_address(self):
        if not self.binary.has_main_command:
            raise SystemExit(f"{self.path}: no LC_MAIN (not a program)")
        text = self.binary.get_segment("__TEXT")
        return text.virtual_address + self.binary.main_command.entrypoint


class Machine:
    """The CPU, memory, the loaded images and the libSystem stand-ins."""

    def __init__(self, arm, out):
        self.arm = arm
        self.out = out
        self.uc = Uc(UC_ARCH_ARM64, UC_MODE_ARM) if arm else Uc(UC_ARCH_X86, UC_MODE_64)
        if arm:
            # Apple's CPUs are ARMv8.5 and later: the code uses their instructions (LDAPR...).
            self.uc.ctl_set_cpu_model(A.UC_CPU_ARM64_MAX)
        self.mapped = []
        self.map(HEAP, HEAP_SIZE, "heap")
        self.map(STACK, STACK_SIZE, "stack")
        self.map(TRAPS, TRAP_SIZE, "imports")
        ret = struct.pack("<I", 0xD65F03C0) if arm else b"\xc3\xc3\xc3\xc3"
        self.uc.mem_write(TRAPS, ret * (TRAP_SIZE // 4))
        self.brk = HEAP
        self.sizes = {}
        self.traps = {}
        self.trap_of = {}
        self.images = []
        self.files = {0: sys.stdin.buffer, 1: None, 2: None}
        self.dirs = {}
        self.errno = self.malloc(8)
        self.stop = None
        self.uc.hook_add(UC_HOOK_CODE, self.on_trap, begin=TRAPS, end=TRAPS + TRAP_SIZE - 1)
        if arm:
            # Enable floating point and SIMD (CPACR_EL1.FPEN).
            self.uc.reg_write(A.UC_ARM64_REG_CPACR_EL1, self.uc.reg_read(A.UC_ARM64_REG_CPACR_EL1) | (3 << 20))

    def map(self, start, size, what):
        for other_start, other_size, other in self.mapped:
            if start < other_start + other_size and other_start < start + size:
                raise SystemExit(f"{what} overlaps {other}")
        self.uc.mem_map(start, size, UC_PROT_ALL)
        self.mapped.append((start, size, what))

    # --- loading and binding
    def load(self, path):
        image = Image(self, path, len(self.images) + 1)
        self.images.append(image)
        return image

    def bind_all(self):
        for image in self.images:
            for binding in image.binary.bindings:
                if not binding.has_symbol:
                    raise SystemExit(f"{image.path}: a binding without a symbol")
                name = binding.symbol.name
                target = None
                for other in self.images:
                    if other is not image and name in other.exports:
                        target = other.exports[name]
                if target is None:
                    target = self.import_address(name)
                self.uc.mem_write(binding.address, struct.pack("<Q", (target + binding.addend) & (2**64 - 1)))

    def import_address(self, name):
        base = name.split("$")[0]
        if base in DATA_IMPORTS:
            key = ("data", base)
            if key not in self.trap_of:
                cell = self.malloc(8)
                self.uc.mem_write(cell, struct.pack("<Q", DATA_IMPORTS[base]))
                self.trap_of[key] = cell
            return self.trap_of[key]
        if base not in self.trap_of:
            address = TRAPS + 16 * len(self.traps)
            self.traps[address] = base
            self.trap_of[base] = address
        return self.trap_of[base]

    # --- memory
    def malloc(self, size, alignment=16):
        pointer = (self.brk + alignment - 1) & ~(alignment - 1)
        self.brk = pointer + max(size, 1)
        if self.brk > HEAP + HEAP_SIZE:
            raise Stop(134, "the emulated heap is exhausted")
        self.sizes[pointer] = size
        return pointer

    def read(self, pointer, size):
        return bytes(self.uc.mem_read(pointer, size)) if size else b""

    def write(self, pointer, data):
        if data:
            self.uc.mem_write(pointer, bytes(data))

    def cstr(self, pointer):
        out = bytearray()
        while True:
            chunk = self.read(pointer + len(out), 64)
            if b"\0" in chunk:
                return bytes(out + chunk[:chunk.index(b"\0")])
            out += chunk

    def u64(self, pointer):
        return struct.unpack("<Q", self.read(pointer, 8))[0]

    # --- registers and the calling convention
    GP_ARM = [A.UC_ARM64_REG_X0 + i for i in range(8)]
    GP_X86 = [X.UC_X86_REG_RDI, X.UC_X86_REG_RSI, X.UC_X86_REG_RDX, X.UC_X86_REG_RCX, X.UC_X86_REG_R8, X.UC_X86_REG_R9]

    def arg(self, i):
        return self.uc.reg_read((self.GP_ARM if self.arm else self.GP_X86)[i])

    def sarg(self, i, bits=32):
        value = self.arg(i) & ((1 << bits) - 1)
        return value - (1 << bits) if value >> (bits - 1) else value

    def fp_bits(self, i):
        register = (A.UC_ARM64_REG_Q0 if self.arm else X.UC_X86_REG_XMM0) + i
        return self.uc.reg_read(register) & (2**64 - 1)

    def set_fp_bits(self, i, bits):
        self.uc.reg_write((A.UC_ARM64_REG_Q0 if self.arm else X.UC_X86_REG_XMM0) + i, bits)

    def ret(self, value):
        self.uc.reg_write(A.UC_ARM64_REG_X0 if self.arm else X.UC_X86_REG_RAX, value & (2**64 - 1))

    def sp(self):
        return self.uc.reg_read(A.UC_ARM64_REG_SP if self.arm else X.UC_X86_REG_RSP)

    def varargs(self, fixed):
        """A reader of a variadic call's arguments after `fixed` named ones."""
        machine = self
        if self.arm:
            # Apple's arm64 ABI passes every variadic argument on the stack, 8 bytes each.
            class StackArgs:
                at = machine.sp()

                def int(self):
                    value = machine.u64(self.at)
                    self.at += 8
                    return value

                def double(self):
                    return struct.unpack("<d", struct.pack("<Q", self.int()))[0]
            return StackArgs()

        class SysVArgs:
            gp = fixed
            fp = 0
            overflow = machine.sp() + 8

            def int(self):
                if self.gp < 6:
                    self.gp += 1
                    return machine.arg(self.gp - 1)
                value = machine.u64(self.overflow)
                self.overflow += 8
                return value

            def double(self):
                if self.fp < 8:
                    self.fp += 1
                    bits = machine.fp_bits(self.fp - 1)
                else:
                    bits = machine.u64(self.overflow)
                    self.overflow += 8
                return struct.unpack("<d", struct.pack("<Q", bits))[0]
        return SysVArgs()

    # --- running
    def run_main(self, image, argv):
        pointers = []
        for text in argv:
            data = text.encode() + b"\0"
            pointer = self.malloc(len(data))
            self.write(pointer, data)
            pointers.append(pointer)
        argv_pointer = self.malloc(8 * (len(pointers) + 1))
        self.write(argv_pointer, b"".join(struct.pack("<Q", p) for p in pointers + [0]))
        envp = self.malloc(8)
        self.write(envp, b"\0" * 8)
        sp = STACK + STACK_SIZE - 0x1000
        if self.arm:
            for register, value in zip(self.GP_ARM, [len(argv), argv_pointer, envp, envp]):
                self.uc.reg_write(register, value)
            self.uc.reg_write(A.UC_ARM64_REG_SP, sp)
            self.uc.reg_write(A.UC_ARM64_REG_LR, RETURN)
        else:
            for register, value in zip(self.GP_X86, [len(argv), argv_pointer, envp, envp]):
                self.uc.reg_write(register, value)
            sp -= 8
            self.write(sp, struct.pack("<Q", RETURN))
            self.uc.reg_write(X.UC_X86_REG_RSP, sp)
        try:
            self.uc.emu_start(image.main_address(), RETURN)
        except UcError as error:
            pc = self.uc.reg_read(A.UC_ARM64_REG_PC if self.arm else X.UC_X86_REG_RIP)
            raise Stop(139, f"CPU fault at {pc:#x}: {error}")
        if self.stop is not None:
            raise self.stop
        register = A.UC_ARM64_REG_X0 if self.arm else X.UC_X86_REG_RAX
        return self.uc.reg_read(register) & 0xFF

    def on_trap(self, uc, address, size, _data):
        if address == RETURN:
            uc.emu_stop()
            return
        name = self.traps.get(address)
        handler = getattr(self, "f" + name, None) if name else None
        try:
            if handler is None:
                raise Stop(134, f"the program called {name or hex(address)}, which this emulator does not serve")
            handler()
        except Stop as stop:
            self.stop = stop
            uc.emu_stop()

    def set_errno(self, linux_errno):
        self.write(self.errno, struct.pack("<i", DARWIN_ERRNO.get(linux_errno, linux_errno)))

    # --- the C library: memory and strings
    def f_malloc(self):
        self.ret(self.malloc(self.arg(0)))

    def f_calloc(self):
        size = self.arg(0) * self.arg(1)
        pointer = self.malloc(size)
        self.write(pointer, b"\0" * size)
        self.ret(pointer)

    def f_realloc(self):
        old, size = self.arg(0), self.arg(1)
        pointer = self.malloc(size)
        if old:
            self.write(pointer, self.read(old, min(size, self.sizes.get(old, 0))))
        self.ret(pointer)

    def f_posix_memalign(self):
        pointer = self.malloc(self.arg(2), max(self.arg(1), 16))
        self.write(self.arg(0), struct.pack("<Q", pointer))
        self.ret(0)

    def f_free(self):
        self.ret(0)

    def f_memcpy(self):
        self.write(self.arg(0), self.read(self.arg(1), self.arg(2)))
        self.ret(self.arg(0))

    f_memmove = f_memcpy

    def f_memset(self):
        self.write(self.arg(0), bytes([self.arg(1) & 0xFF]) * self.arg(2))
        self.ret(self.arg(0))

    def f_bzero(self):
        self.write(self.arg(0), b"\0" * self.arg(1))

    f___bzero = f_bzero

    def f_memcmp(self):
        x, y = self.read(self.arg(0), self.arg(2)), self.read(self.arg(1), self.arg(2))
        self.ret(0 if x == y else (-1 if x < y else 1))

    def f_strlen(self):
        self.ret(len(self.cstr(self.arg(0))))

    def f_strcmp(self):
        x, y = self.cstr(self.arg(0)), self.cstr(self.arg(1))
        self.ret(0 if x == y else (-1 if x < y else 1))

    def f_strncmp(self):
        n = self.arg(2)
        x, y = self.cstr(self.arg(0))[:n], self.cstr(self.arg(1))[:n]
        self.ret(0 if x == y else (-1 if x < y else 1))

    def f_strchr(self):
        text = self.cstr(self.arg(0)) + b"\0"
        at = text.find(bytes([self.arg(1) & 0xFF]))
        self.ret(0 if at < 0 else self.arg(0) + at)

    def f_strstr(self):
        at = self.cstr(self.arg(0)).find(self.cstr(self.arg(1)))
        self.ret(0 if at < 0 else self.arg(0) + at)

    def f_strcspn(self):
        text, reject = self.cstr(self.arg(0)), set(self.cstr(self.arg(1)))
        n = 0
        while n < len(text) and text[n] not in reject:
            n += 1
        self.ret(n)

    # --- the C library: numbers
    def number_prefix(self, text, allowed):
        """The longest prefix of `text` (after blanks) made of `allowed` characters."""
        start = len(text) - len(text.lstrip(b" \t\n\r\f\v"))
        end = start
        while end < len(text) and chr(text[end]) in allowed:
            end += 1
        return start, end

    def f_atoi(self):
        text = self.cstr(self.arg(0))
        start, end = self.number_prefix(text, "+-0123456789")
        try:
            self.ret(int(text[start:end]) & 0xFFFFFFFF)
        except ValueError:
            self.ret(0)

    def f_strtoul(self):
        pointer, end_pointer, base = self.arg(0), self.arg(1), self.arg(2) & 0xFFFFFFFF
        text = self.cstr(pointer)
        digits = "0123456789abcdefABCDEFxX+-" if base in (0, 16) else "0123456789+-"
        start, end = self.number_prefix(text, digits)
        try:
            value = int(text[start:end], base)
        except ValueError:
            value, end = 0, 0
        if end_pointer:
            self.write(end_pointer, struct.pack("<Q", pointer + end))
        self.ret(value)

    def f_strtol(self):
        # The same parse; a negative value is returned in two's complement (long is 64-bit).
        self.f_strtoul()

    def parse_float(self, pointer, end_pointer):
        text = self.cstr(pointer)
        start, end = self.number_prefix(text, "+-0123456789.eE")
        while end > start:
            try:
                value = fractions.Fraction(text[start:end].decode())
                break
            except ValueError:
                end -= 1
        else:
            value, end = fractions.Fraction(0), 0
        if end_pointer:
            self.write(end_pointer, struct.pack("<Q", pointer + end))
        return value

    def f_strtof(self):
        value = self.parse_float(self.arg(0), self.arg(1))
        self.set_fp_bits(0, nearest_float32_bits(value))
        self.ret(0)

    def f_strtod(self):
        value = self.parse_float(self.arg(0), self.arg(1))
        self.set_fp_bits(0, struct.unpack("<Q", struct.pack("<d", float(value)))[0])

    # --- the C library: stdio
    def emit(self, stream, data):
        if stream == 3:
            sys.stderr.write(data.decode(errors="replace"))
        else:
            self.out.write(data.decode(errors="replace"))

    def format(self, fmt, args):
        out = bytearray()
        i = 0
        while i < len(fmt):
            c = fmt[i]
            if c != ord("%"):
                out.append(c)
                i += 1
                continue
            j = i + 1
            while j < len(fmt) and chr(fmt[j]) in "-+ #0123456789.*hlLqjzt":
                j += 1
            spec, conv = fmt[i + 1:j].decode(), chr(fmt[j])
            flags = spec.rstrip("hlLqjzt")
            if "*" in flags:
                flags = flags.replace("*", str(args.int() & 0xFFFFFFFF))
            long64 = "l" in spec or "q" in spec or "j" in spec or "z" in spec
            if conv == "%":
                out += b"%"
            elif conv in "di":
                value = args.int() & (2**64 - 1 if long64 else 0xFFFFFFFF)
                bits = 64 if long64 else 32
                value = value - (1 << bits) if value >> (bits - 1) else value
                out += ("%" + flags + "d").__mod__(value).encode()
            elif conv in "uxXo":
                value = args.int() & (2**64 - 1 if long64 else 0xFFFFFFFF)
                out += ("%" + flags + conv).__mod__(value).encode()
            elif conv == "c":
                out.append(args.int() & 0xFF)
            elif conv == "s":
                text = self.cstr(args.int())
                out += ("%" + flags + "s").__mod__(text.decode(errors="replace")).encode()
            elif conv == "p":
                out += hex(args.int()).encode()
            elif conv in "fFeEgG":
                out += ("%" + flags + conv).__mod__(args.double()).encode()
            else:
                raise Stop(134, f"printf conversion %{conv} is not served")
            i = j + 1
        return bytes(out)

    def f_sscanf(self):
        """sscanf with whitespace-separated %Ns and %d conversions (what the tests use)."""
        text, fmt = self.cstr(self.arg(0)), self.cstr(self.arg(1)).decode()
        args = self.varargs(2)
        words = text.split()
        assigned = 0
        for conversion in fmt.split():
            if not conversion.startswith("%") or assigned >= len(words):
                break
            word = words[assigned]
            if conversion.endswith("s"):
                width = int(conversion[1:-1] or 0) or len(word)
                self.write(args.int(), word[:width] + b"\0")
            elif conversion.endswith("d"):
                try:
                    self.write(args.int(), struct.pack("<i", int(word)))
                except ValueError:
                    break
            else:
                raise Stop(134, f"sscanf conversion {conversion} is not served")
            assigned += 1
        self.ret(assigned if words else -1)

    def f_printf(self):
        data = self.format(self.cstr(self.arg(0)), self.varargs(1))
        self.emit(2, data)
        self.ret(len(data))

    def f_fprintf(self):
        data = self.format(self.cstr(self.arg(1)), self.varargs(2))
        self.emit(self.arg(0), data)
        self.ret(len(data))

    def f_snprintf(self):
        data = self.format(self.cstr(self.arg(2)), self.varargs(3))
        size = self.arg(1)
        if size:
            self.write(self.arg(0), data[:size - 1] + b"\0")
        self.ret(len(data))

    def f_puts(self):
        self.emit(2, self.cstr(self.arg(0)) + b"\n")
        self.ret(1)

    def f_putchar(self):
        self.emit(2, bytes([self.arg(0) & 0xFF]))
        self.ret(self.arg(0) & 0xFF)

    def f_fputs(self):
        self.emit(self.arg(1), self.cstr(self.arg(0)))
        self.ret(1)

    def f_fputc(self):
        self.emit(self.arg(1), bytes([self.arg(0) & 0xFF]))
        self.ret(self.arg(0) & 0xFF)

    def f_fwrite(self):
        data = self.read(self.arg(0), self.arg(1) * self.arg(2))
        self.emit(self.arg(3), data)
        self.ret(self.arg(2))

    def f_fflush(self):
        self.out.flush()
        self.ret(0)

    def f_fopen(self):
        path, mode = self.cstr(self.arg(0)).decode(), self.cstr(self.arg(1)).decode()
        try:
            handle = open(path, mode.replace("b", "") + "b")
        except OSError as error:
            self.set_errno(error.errno)
            self.ret(0)
            return
        key = 0x100 + len(self.files)
        self.files[key] = handle
        self.ret(key)

    def f_fclose(self):
        handle = self.files.pop(self.arg(0), None)
        if handle is not None:
            handle.close()
        self.ret(0)

    def f_fgets(self):
        buffer, size, handle = self.arg(0), self.sarg(1), self.files.get(self.arg(2))
        if handle is None or size <= 0:
            self.ret(0)
            return
        line = handle.readline(size - 1)
        if not line:
            self.ret(0)
            return
        self.write(buffer, line + b"\0")
        self.ret(buffer)

    # --- the process
    def f_exit(self):
        raise Stop(self.arg(0) & 0xFF, "exit")

    def f_abort(self):
        raise Stop(134, "abort() was called")

    def f___stack_chk_fail(self):
        raise Stop(134, "stack protector: stack smashing detected")

    def f_getenv(self):
        value = os.environ.get(self.cstr(self.arg(0)).decode(errors="replace"))
        if value is None:
            self.ret(0)
        else:
            pointer = self.malloc(len(value) + 1)
            self.write(pointer, value.encode() + b"\0")
            self.ret(pointer)

    def f_getpid(self):
        self.ret(os.getpid())

    def f_clock_gettime(self):
        import time
        now = time.clock_gettime(time.CLOCK_MONOTONIC if self.arg(0) != 0 else time.CLOCK_REALTIME)
        self.write(self.arg(1), struct.pack("<qq", int(now), int((now % 1) * 1e9)))
        self.ret(0)

    def f_CCRandomGenerateBytes(self):
        self.write(self.arg(0), os.urandom(self.arg(1)))
        self.ret(0)

    def f___error(self):
        self.ret(self.errno)

    def f_strerror_r(self):
        text = os.strerror(self.sarg(0)).encode()[: max(self.arg(2) - 1, 0)]
        if self.arg(2):
            self.write(self.arg(1), text + b"\0")
        self.ret(0)

    # --- threads (one thread: locks are free)
    def f_ok(self):
        self.ret(0)

    f_pthread_mutex_init = f_pthread_mutex_lock = f_pthread_mutex_trylock = f_pthread_mutex_unlock = f_ok
    f_pthread_mutex_destroy = f_pthread_mutexattr_init = f_pthread_mutexattr_settype = f_pthread_mutexattr_destroy = f_ok
    f__tlv_atexit = f_dispatch_release = f_dispatch_semaphore_signal = f_dispatch_semaphore_wait = f_ok

    def f_dispatch_semaphore_create(self):
        self.ret(self.malloc(16))

    def f_pthread_threadid_np(self):
        if self.arg(1):
            self.write(self.arg(1), struct.pack("<Q", 1))
        self.ret(0)

    def f__tlv_bootstrap(self):
        descriptor = self.arg(0)
        key, offset = self.u64(descriptor + 8), self.u64(descriptor + 16)
        image = self.images[key - 1]
        if image.tlv_block is None:
            low = min(s.virtual_address for s in image.tlv_template)
            high = max(s.virtual_address + s.size for s in image.tlv_template)
            image.tlv_block = self.malloc(high - low + 16)
            self.write(image.tlv_block, b"\0" * (high - low))
            for section in image.tlv_template:
                if section.type == lief.MachO.Section.TYPE.THREAD_LOCAL_REGULAR:
                    self.write(image.tlv_block + section.virtual_address - low, self.read(section.virtual_address, section.size))
        self.ret(image.tlv_block + offset)

    # --- files, through the host's file system with Darwin's conventions
    def path_arg(self, i):
        return self.cstr(self.arg(i)).decode(errors="surrogateescape")

    def os_call(self, call, on_error=-1):
        try:
            return call()
        except OSError as error:
            self.set_errno(error.errno or 22)
            return on_error

    def f_open(self):
        flags = 0
        for darwin, linux in O_FLAGS:
            if self.arg(1) & darwin:
                flags |= linux
        self.ret(self.os_call(lambda: os.open(self.path_arg(0), flags, self.arg(2) & 0o7777)))

    def f_close(self):
        self.ret(self.os_call(lambda: os.close(self.sarg(0)) or 0))

    def f_read(self):
        data = self.os_call(lambda: os.read(self.sarg(0), self.arg(2)), None)
        if data is None:
            self.ret(-1)
        else:
            self.write(self.arg(1), data)
            self.ret(len(data))

    def write_out(self, fd, data):
        """write(2) of `data` to `fd`: stdout and stderr are captured, other files written."""
        if fd in (1, 2):
            self.emit(fd + 1, data)
            self.ret(len(data))
        else:
            self.ret(self.os_call(lambda: os.write(fd, data)))

    def f_write(self):
        self.write_out(self.sarg(0), self.read(self.arg(1), self.arg(2)))

    def f_writev(self):
        iov = self.arg(1)
        self.write_out(self.sarg(0), b"".join(self.read(self.u64(iov + 16 * i), self.u64(iov + 16 * i + 8)) for i in range(self.sarg(2))))

    def f_fcntl(self):
        self.ret(0)  # F_FULLFSYNC and descriptor flags: nothing to do here

    def f_rename(self):
        self.ret(self.os_call(lambda: os.rename(self.path_arg(0), self.path_arg(1)) or 0))

    def f_unlink(self):
        self.ret(self.os_call(lambda: os.unlink(self.path_arg(0)) or 0))

    def f_remove(self):
        def remove():
            path = self.path_arg(0)
            (os.rmdir if os.path.isdir(path) and not os.path.islink(path) else os.unlink)(path)
            return 0
        self.ret(self.os_call(remove))

    def f_getcwd(self):
        cwd = os.getcwd().encode() + b"\0"
        if len(cwd) > self.arg(1):
            self.set_errno(34)
            self.ret(0)
        else:
            self.write(self.arg(0), cwd)
            self.ret(self.arg(0))

    def write_stat(self, pointer, st):
        def timespec(ns):
            return struct.pack("<qq", ns // 10**9, ns % 10**9)
        data = struct.pack("<iHHQIIi4x", st.st_dev & 0x7FFFFFFF, st.st_mode, min(st.st_nlink, 0xFFFF), st.st_ino, st.st_uid, st.st_gid, st.st_rdev & 0x7FFFFFFF)
        data += timespec(st.st_atime_ns) + timespec(st.st_mtime_ns) + timespec(st.st_ctime_ns) + timespec(st.st_ctime_ns)
        data += struct.pack("<qqiIIi", st.st_size, st.st_blocks, st.st_blksize, 0, 0, 0) + b"\0" * 16
        assert len(data) == 144
        self.write(pointer, data)

    def stat_call(self, call, pointer):
        st = self.os_call(call, None)
        if st is None:
            self.ret(-1)
        else:
            self.write_stat(pointer, st)
            self.ret(0)

    def f_stat(self):
        self.stat_call(lambda: os.stat(self.path_arg(0)), self.arg(1))

    def f_lstat(self):
        self.stat_call(lambda: os.lstat(self.path_arg(0)), self.arg(1))

    def f_fstat(self):
        self.stat_call(lambda: os.fstat(self.sarg(0)), self.arg(1))

    def f_fstatat(self):
        directory, path = self.sarg(0), self.path_arg(1)
        follow = not (self.arg(3) & AT_SYMLINK_NOFOLLOW)
        self.stat_call(lambda: os.stat(path, dir_fd=None if directory == AT_FDCWD else directory, follow_symlinks=follow), self.arg(2))

    def f_opendir(self):
        path = self.path_arg(0)
        names = self.os_call(lambda: sorted(os.listdir(path)), None)
        descriptor = self.os_call(lambda: os.open(path, os.O_RDONLY | os.O_DIRECTORY), None) if names is not None else None
        if descriptor is None:
            self.ret(0)
            return
        handle = self.malloc(16)
        self.dirs[handle] = ([".", ".."] + names, descriptor)
        self.ret(handle)

    def f_readdir_r(self):
        names = self.dirs.get(self.arg(0), ([], None))[0]
        entry, result = self.arg(1), self.arg(2)
        if not names:
            self.write(result, struct.pack("<Q", 0))
        else:
            name = names.pop(0).encode()
            self.write(entry, struct.pack("<QQHHB", 1, 0, 1048, len(name), 0) + name + b"\0")
            self.write(result, struct.pack("<Q", entry))
        self.ret(0)

    def f_closedir(self):
        entry = self.dirs.pop(self.arg(0), None)
        if entry is not None:
            os.close(entry[1])
        self.ret(0)

    def f_dirfd(self):
        self.ret(self.dirs[self.arg(0)][1])


def nearest_float32_bits(value):
    """The float32 nearest to the rational `value` (ties to even), as bits: strtof's answer."""
    if value == 0:
        return 0
    sign = 0x8000_0000 if value < 0 else 0
    value = abs(value)
    exponent = value.numerator.bit_length() - value.denominator.bit_length()
    if fractions.Fraction(2) ** exponent > value:
        exponent -= 1
    exponent = max(exponent, -126)
    scaled = value / fractions.Fraction(2) ** (exponent - 23)
    mantissa = scaled.numerator // scaled.denominator
    remainder = scaled - mantissa
    if remainder > fractions.Fraction(1, 2) or (remainder == fractions.Fraction(1, 2) and mantissa & 1):
        mantissa += 1
    if mantissa >= 1 << 24:
        mantissa >>= 1
        exponent += 1
    if exponent > 127:
        return sign | 0x7F80_0000
    if mantissa < 1 << 23:
        return sign | mantissa
    return sign | ((exponent + 127) << 23) | (mantissa & 0x7FFFFF)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--library", help="a dylib to load beside the program (its exports are bound into it)")
    parser.add_argument("program")
    parser.add_argument("args", nargs=argparse.REMAINDER)
    options = parser.parse_args()
    header = lief.MachO.parse(options.program).at(0).header
    arm = header.cpu_type == lief.MachO.Header.CPU_TYPE.ARM64
    machine = Machine(arm, sys.stdout)
    program = machine.load(options.program)
    if options.library:
        machine.load(options.library)
    machine.bind_all()
    try:
        status = machine.run_main(program, [options.program] + options.args)
    except Stop as stop:
        sys.stdout.flush()
        if stop.why != "exit":
            print(f"darwin_run: {stop.why}", file=sys.stderr)
        status = stop.status
    sys.stdout.flush()
    sys.exit(status)


if __name__ == "__main__":
    main()
