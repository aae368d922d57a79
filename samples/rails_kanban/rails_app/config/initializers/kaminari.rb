Kaminari.configure do |config|
  config.default_per_page = 20
  config.max_per_page = 100
end
