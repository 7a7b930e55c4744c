/* App-mode builtins: graphics and input for browser apps. Outside the
 * browser they are stubs returning fixed values (screen 800x600, no input).
 *
 * The rows at the bottom are this family's part of the builtin table
 * (src/lib/builtins.h); the implementations are written above them. */
#include <geno.h>

#include "families.h"

const BuiltinDef lib_app_builtins[] = {
    {"clear_screen", "(color: String) -> Unit", 0, NULL, BF_APP_STUB, NULL},
    {"clear_text_input", "() -> Unit", 0, NULL, BF_APP_STUB, NULL},
    {"draw_circle", "(x: Int, y: Int, radius: Int, color: String) -> Unit", 0, NULL, BF_APP_STUB, NULL},
    {"draw_line", "(x1: Int, y1: Int, x2: Int, y2: Int, color: String) -> Unit", 0, NULL, BF_APP_STUB, NULL},
    {"draw_rect", "(x: Int, y: Int, width: Int, height: Int, color: String) -> Unit", 0, NULL, BF_APP_STUB, NULL},
    {"draw_rect_outline", "(x: Int, y: Int, width: Int, height: Int, color: String) -> Unit", 0, NULL, BF_APP_STUB, NULL},
    {"draw_text", "(text: String, x: Int, y: Int, size: Int, color: String) -> Unit", 0, NULL, BF_APP_STUB, NULL},
    {"get_text_input", "() -> String", 0, NULL, BF_APP_STUB, NULL},
    {"is_key_down", "(key: String) -> Bool", 0, NULL, BF_APP_STUB, NULL},
    {"is_key_pressed", "(key: String) -> Bool", 0, NULL, BF_APP_STUB, NULL},
    {"is_mouse_clicked", "() -> Bool", 0, NULL, BF_APP_STUB, NULL},
    {"is_mouse_down", "() -> Bool", 0, NULL, BF_APP_STUB, NULL},
    {"mouse_x", "() -> Int", 0, NULL, BF_APP_STUB, NULL},
    {"mouse_y", "() -> Int", 0, NULL, BF_APP_STUB, NULL},
    {"screen_height", "() -> Int", 0, NULL, BF_APP_STUB, NULL},
    {"screen_width", "() -> Int", 0, NULL, BF_APP_STUB, NULL},
};
const size_t lib_app_builtin_count = ARRAY_LEN(lib_app_builtins);
