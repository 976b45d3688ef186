"""AgentV formats: one package per runtime generation (v2 lives in `engine/` + `checks/`,
4.x in `formats/v4/`), chosen at one dispatch point (`formats.runtime`)."""
