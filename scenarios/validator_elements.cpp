// Load-time checks of the element values ops write into shared buffers.
#include "scenarios/validator_util.h"

namespace tmasim {

// An integer buffer's element expression is evaluated in integers: "x + 0.5" would
// silently be "x + 0" on both backends.
void check_integer_elements(const Scenario& sc, const Op& op) {
    const bool writes_elements =
        op.kind == OpKind::compute || op.kind == OpKind::shared_store || op.kind == OpKind::st_async;
    if (!writes_elements || op.buffer.empty()) return;
    const SharedBuffer* b = sc.find_shared(op.buffer.name);
    const Expr& e = op.kind == OpKind::compute ? op.fn : op.value;
    if (b && !dtype_is_float(b->type) && e.has_float_literal())
        throw ScenarioError(e.loc(), op_key(op, op.kind == OpKind::compute ? "fn" : "value"),
                            "\"" + e.text() + "\" has a non-integer literal but " + b->name + " holds " +
                                to_string(b->type) + "; allowed: integer literals for integer buffers");
}

}  // namespace tmasim
