// A shared library without the plugin entry point.
extern "C" int not_a_plugin() { return 0; }
