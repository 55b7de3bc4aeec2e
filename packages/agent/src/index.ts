// Public API of @ferry/agent. Any export added here becomes public: named exports only.
export {};
