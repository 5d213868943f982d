"""The short name of an attention problem that scripts/torch_attention.py prints and keys its JSON
by, from a suite entry (suites/attention.json's form) or a ktune results record's problem; torch
free, so scripts/attention_timer_check.py can match the two files anywhere."""


def problem_text(p):
    """p: a suite entry, or a results record's "problem" (its sizes under "dims")."""
    p = {**p.get("dims", {}), **p}
    text = f"b{p['batch']} h{p['heads']}"
    if p.get("kv_heads", p["heads"]) != p["heads"]:
        text += f"/{p['kv_heads']}"
    text += f" s{p['seqlen']}"
    if p.get("seqlen_kv", p["seqlen"]) != p["seqlen"]:
        text += f"x{p['seqlen_kv']}"
    text += f" d{p['head_dim']} {p.get('dtype', 'fp16')}"
    if p.get("causal", "no") == "yes":
        text += " causal"
    if p.get("layout", "bhsd") == "bshd":
        text += " bshd"
    return text
