package io.gpusched.testkit.sim;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class UsageReportTest {
    @Test
    void readsTheProtocol() {
        assertEquals(Optional.of(new UsageReport(42, Map.of(0, 8000L, 3, 1L))),
                UsageReport.parse("{\"pid\": 42, \"usage\": {\"0\": 8000, \"3\": 1}}\n"));
    }

    @Test
    void toleratesWhitespaceKeyOrderAndExtraKeys() {
        assertEquals(Optional.of(new UsageReport(7, Map.of())),
                UsageReport.parse(" {\n \"usage\" : { } ,\"v\":2.5e3, \"x\": {\"a\": [1, \"]\"]}, \"pid\":7, \"t\": true}"));
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "{", "{}", "null", "[]", "{\"pid\": 1}", "{\"usage\": {}}", "{\"pid\": 0, \"usage\": {}}",
            "{\"pid\": 1, \"usage\": {\"0\": -1}}", "{\"pid\": 1, \"usage\": {\"0\": 1.5}}",
            "{\"pid\": 1, \"usage\": {\"a\": 1}}", "{\"pid\": 1, \"usage\": {\"0\": 1}} trailing",
            "{\"pid\": 1, \"usage\": {\"0\": 99999999999999999999}}", "{\"pid\": \"1\", \"usage\": {}}",
            "{\"pid\": 1, \"usage\": {\"0\": 1", "{\"pid\": 1, \"usage\": {\"\u0660\": 1}}"})
    void rejectsAnythingElse(String text) {
        assertTrue(UsageReport.parse(text).isEmpty(), text);
    }
}
