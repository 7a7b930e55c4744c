/* App-mode builtins: graphics and input for browser apps. Outside the
 * browser they are stubs returning fixed values (screen 800x600, no input).
 *
 * The rows at the bottom are this family's part of the builtin table
 * (src/lib/builtins.h); the implementations are written above them. */
#include <geno.h>

#include "../vm/vmapi.h"
#include "families.h"

/* Outside the browser the graphics builtins draw nothing and the input
 * builtins report an 800x600 screen with no keys, mouse or text. */
static bool app_unit(VM *vm, Value *args, int nargs, Value *out) {
  *out = v_unit();
  return true;
}

static bool app_false(VM *vm, Value *args, int nargs, Value *out) {
  *out = v_bool(false);
  return true;
}

static bool app_zero(VM *vm, Value *args, int nargs, Value *out) {
  *out = v_int(0);
  return true;
}

/* The stub screen size the reference reports (its browser default). */
#define STUB_SCREEN_WIDTH 800
#define STUB_SCREEN_HEIGHT 600

static bool app_screen_width(VM *vm, Value *args, int nargs, Value *out) {
  *out = v_int(STUB_SCREEN_WIDTH);
  return true;
}

static bool app_screen_height(VM *vm, Value *args, int nargs, Value *out) {
  *out = v_int(STUB_SCREEN_HEIGHT);
  return true;
}

static bool app_no_text(VM *vm, Value *args, int nargs, Value *out) {
  return vm_string(vm, "", 0, out);
}

const BuiltinDef lib_app_builtins[] = {
    {"clear_screen", "(color: String) -> Unit", 0, NULL, BF_APP_STUB,  app_unit, "$b_clear_screen"},
    {"clear_text_input", "() -> Unit", 0, NULL, BF_APP_STUB,  app_unit, "$b_clear_text_input"},
    {"draw_circle", "(x: Int, y: Int, radius: Int, color: String) -> Unit", 0, NULL, BF_APP_STUB,  app_unit, "$b_draw_circle"},
    {"draw_line", "(x1: Int, y1: Int, x2: Int, y2: Int, color: String) -> Unit", 0, NULL, BF_APP_STUB,  app_unit, "$b_draw_line"},
    {"draw_rect", "(x: Int, y: Int, width: Int, height: Int, color: String) -> Unit", 0, NULL, BF_APP_STUB,  app_unit, "$b_draw_rect"},
    {"draw_rect_outline", "(x: Int, y: Int, width: Int, height: Int, color: String) -> Unit", 0, NULL, BF_APP_STUB,  app_unit, "$b_draw_rect_outline"},
    {"draw_text", "(text: String, x: Int, y: Int, size: Int, color: String) -> Unit", 0, NULL, BF_APP_STUB,  app_unit, "$b_draw_text"},
    {"get_text_input", "() -> String", 0, NULL, BF_APP_STUB,  app_no_text, "$b_get_text_input"},
    {"is_key_down", "(key: String) -> Bool", 0, NULL, BF_APP_STUB,  app_false, "$b_is_key_down"},
    {"is_key_pressed", "(key: String) -> Bool", 0, NULL, BF_APP_STUB,  app_false, "$b_is_key_pressed"},
    {"is_mouse_clicked", "() -> Bool", 0, NULL, BF_APP_STUB,  app_false, "$b_is_mouse_clicked"},
    {"is_mouse_down", "() -> Bool", 0, NULL, BF_APP_STUB,  app_false, "$b_is_mouse_down"},
    {"mouse_x", "() -> Int", 0, NULL, BF_APP_STUB,  app_zero, "$b_mouse_x"},
    {"mouse_y", "() -> Int", 0, NULL, BF_APP_STUB,  app_zero, "$b_mouse_y"},
    {"screen_height", "() -> Int", 0, NULL, BF_APP_STUB,  app_screen_height, "$b_screen_height"},
    {"screen_width", "() -> Int", 0, NULL, BF_APP_STUB,  app_screen_width, "$b_screen_width"},
};
const size_t lib_app_builtin_count = ARRAY_LEN(lib_app_builtins);
