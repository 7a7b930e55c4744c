// geno-c JavaScript runtime: app mode in a browser page (init/update/render
// drawn on the page's <canvas id="geno-canvas">) and the app builtins.

//@ $app $ctx $canvas $keysDown $keysPressed $mouse $textIn
// The canvas is looked up when the script runs (the page loads the script
// after the canvas element). One frame: update(model, dt) then render.
let $canvas = null, $ctx = null;
const $keysDown = new Set(), $keysPressed = new Set();
const $mouse = { x: 0, y: 0, down: false, clicked: false };
let $textIn = "";
function $app(init, update, render, examples) {
  if (typeof document === "undefined") {
    $report(new $GErr("E499", "This program is a browser app (init/update/render): build it with `geno build`", true));
    return;
  }
  $canvas = document.getElementById("geno-canvas");
  $ctx = $canvas ? $canvas.getContext("2d") : null;
  document.addEventListener("keydown", (e) => {
    if (!$keysDown.has(e.key)) $keysPressed.add(e.key);
    $keysDown.add(e.key);
    if (e.key === "Backspace") $textIn = Array.from($textIn).slice(0, -1).join("");
    else if (Array.from(e.key).length === 1 && $textIn.length < 10000) $textIn += e.key;
    if (e.key.startsWith("Arrow") || e.key === " ") e.preventDefault();
  });
  document.addEventListener("keyup", (e) => { $keysDown.delete(e.key); });
  if ($canvas) {
    const pos = (e) => { const r = $canvas.getBoundingClientRect(); $mouse.x = Math.floor(e.clientX - r.left); $mouse.y = Math.floor(e.clientY - r.top); };
    $canvas.addEventListener("mousemove", pos);
    $canvas.addEventListener("mousedown", (e) => { pos(e); $mouse.down = true; $mouse.clicked = true; });
    $canvas.addEventListener("mouseup", (e) => { pos(e); $mouse.down = false; });
  }
  let model, last = null;
  const fail = (e) => { $report(e); $flush(); };
  const start = () => {
    try {
      model = init();
      render(model);
      $flush();
    } catch (e) { fail(e); return; }
    requestAnimationFrame(frame);
  };
  const frame = (ts) => {
    const dt = last === null ? 0.016 : (ts - last) / 1000;
    last = ts;
    try {
      $S = 0;
      model = update(model, dt);
      render(model);
      $flush();
    } catch (e) { fail(e); return; }
    $keysPressed.clear();
    $mouse.clicked = false;
    requestAnimationFrame(frame);
  };
  let checked;
  try { checked = examples && examples(); } catch (e) { fail(e); return; }
  if (checked instanceof Promise) checked.then(start, fail);
  else start();
}

//@ $b_screen_width
function $b_screen_width() { return BigInt($canvas ? $canvas.width : 800); }
//@ $b_screen_height
function $b_screen_height() { return BigInt($canvas ? $canvas.height : 600); }
//@ $b_clear_screen
function $b_clear_screen(color) { if (!$ctx) return; $ctx.fillStyle = color; $ctx.fillRect(0, 0, $canvas.width, $canvas.height); }
//@ $b_draw_rect
function $b_draw_rect(x, y, w, h, color) { if (!$ctx) return; $ctx.fillStyle = color; $ctx.fillRect(Number(x), Number(y), Number(w), Number(h)); }
//@ $b_draw_rect_outline
function $b_draw_rect_outline(x, y, w, h, color) { if (!$ctx) return; $ctx.strokeStyle = color; $ctx.strokeRect(Number(x), Number(y), Number(w), Number(h)); }
//@ $b_draw_circle
function $b_draw_circle(x, y, r, color) {
  if (!$ctx) return;
  $ctx.fillStyle = color; $ctx.beginPath(); $ctx.arc(Number(x), Number(y), Number(r), 0, 2 * Math.PI); $ctx.fill();
}
//@ $b_draw_line
function $b_draw_line(x1, y1, x2, y2, color) {
  if (!$ctx) return;
  $ctx.strokeStyle = color; $ctx.beginPath(); $ctx.moveTo(Number(x1), Number(y1)); $ctx.lineTo(Number(x2), Number(y2)); $ctx.stroke();
}
//@ $b_draw_text
function $b_draw_text(text, x, y, size, color) {
  if (!$ctx) return;
  $ctx.fillStyle = color; $ctx.font = Number(size) + "px monospace"; $ctx.fillText(text, Number(x), Number(y));
}
//@ $b_is_key_down
function $b_is_key_down(k) { return $keysDown.has(k); }
//@ $b_is_key_pressed
function $b_is_key_pressed(k) { return $keysPressed.has(k); }
//@ $b_mouse_x
function $b_mouse_x() { return BigInt($mouse.x); }
//@ $b_mouse_y
function $b_mouse_y() { return BigInt($mouse.y); }
//@ $b_is_mouse_down
function $b_is_mouse_down() { return $mouse.down; }
//@ $b_is_mouse_clicked
function $b_is_mouse_clicked() { return $mouse.clicked; }
//@ $b_get_text_input
function $b_get_text_input() { return $textIn; }
//@ $b_clear_text_input
function $b_clear_text_input() { $textIn = ""; }
