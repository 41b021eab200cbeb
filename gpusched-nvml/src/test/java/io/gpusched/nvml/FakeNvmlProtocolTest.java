package io.gpusched.nvml;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.sun.jna.Function;
import com.sun.jna.Memory;
import com.sun.jna.NativeLibrary;
import com.sun.jna.Pointer;
import com.sun.jna.ptr.IntByReference;
import com.sun.jna.ptr.PointerByReference;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The fake answers the process-list protocol as the real driver does, so the backend's tests prove
 * something. (The backend itself passes a buffer on the first call; other users of the fake may not.)
 */
class FakeNvmlProtocolTest {
    @TempDir
    Path dir;

    private NativeLibrary lib;
    private Pointer gpu0;

    @BeforeEach
    void init() {
        FakeNvml.start(FakeNvml.Variant.MODERN, dir);
        lib = NativeLibrary.getInstance(FakeNvml.Variant.MODERN.library().toString());
        assertEquals(0, call("nvmlInit_v2"));
        PointerByReference handle = new PointerByReference();
        assertEquals(0, call("nvmlDeviceGetHandleByIndex_v2", 0, handle));
        gpu0 = handle.getValue();
    }

    @AfterEach
    void shutdown() {
        call("nvmlShutdown");
    }

    private int call(String function, Object... args) {
        Function f = lib.getFunction(function);
        return f.invokeInt(args);
    }

    @Test
    void nullBufferGetsInsufficientSizeAndTheCount() {
        IntByReference count = new IntByReference(0);
        assertEquals(NvmlReturn.INSUFFICIENT_SIZE, call(NvmlSymbols.PROCESSES_V3, gpu0, count, null));
        assertEquals(2, count.getValue());
    }

    @Test
    void tooSmallABufferGetsInsufficientSizeAndTheCount() {
        IntByReference count = new IntByReference(1);
        assertEquals(NvmlReturn.INSUFFICIENT_SIZE, call(NvmlSymbols.PROCESSES_V2, gpu0, count, new Memory(64)));
        assertEquals(2, count.getValue());
    }

    @Test
    void noProcessesIsSuccessWithZero() {
        PointerByReference handle = new PointerByReference();
        assertEquals(0, call("nvmlDeviceGetHandleByIndex_v2", 1, handle));
        IntByReference count = new IntByReference(0);
        assertEquals(NvmlReturn.SUCCESS, call(NvmlSymbols.PROCESSES_V1, handle.getValue(), count, null));
        assertEquals(0, count.getValue());
    }

    @Test
    void v1WritesSixteenByteEntries() {
        IntByReference count = new IntByReference(4);
        Memory buffer = new Memory(4 * 32);
        buffer.clear();
        assertEquals(NvmlReturn.SUCCESS, call(NvmlSymbols.PROCESSES_V1, gpu0, count, buffer));
        assertEquals(2, count.getValue());
        assertEquals(4343, buffer.getInt(16));
    }

    @Test
    void callsBeforeInitAreUninitialized() {
        call("nvmlShutdown");
        assertEquals(NvmlReturn.UNINITIALIZED, call("nvmlDeviceGetCount_v2", new IntByReference()));
        call("nvmlInit_v2");
    }
}
